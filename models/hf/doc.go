// Package hf reads the files of a Hugging Face model folder that the language-model forward
// pass (models/llm) needs: config.json (bounded, kept as raw JSON for the architecture to
// decode), and the weights in safetensors files, single or sharded with
// model.safetensors.index.json, mapped read-only into memory (syscall.Mmap where the
// platform has it, a bounded read elsewhere) rather than copied.
//
// Every number of a file from someone else is checked before it is used: the safetensors
// header length (at most MaxHeader and inside the file), each tensor's rank, dimensions and
// byte range (inside the data, agreeing with dtype × shape, overlapping no other tensor),
// the shard names of an index (plain file names inside the folder), the sizes of
// config.json and the index, each tensor of an index found in the shard it names, the
// header's __metadata__ an object of strings and data_offsets exactly two numbers (a
// zero-size tensor overlaps nothing). JSON is decoded strictly (windtunnel/backends/untrusted: a key
// twice in any object is refused, naming it), and every file is refused before it is
// opened unless it is a regular file (a FIFO would block). Check sees a mapped file
// truncated under a run, and Tensor.Rows turns a read past its new end into an error
// naming the file rather than SIGBUS. Nothing is allocated from an unchecked size and
// nothing panics on a hostile file; errors start "hf: " and name the file.
//
// Tensors are float32 (F32), IEEE half (F16) or bfloat16 (BF16); Tensor.Rows converts a
// row range to float32 on the fly, and Tensor.View returns the mapped float32 data itself
// where no conversion is needed (F32, aligned, on a little-endian machine). Other dtypes
// (the integer and boolean buffers old checkpoints carry) are listed but not converted.
// WriteSafetensors writes a file in the format (the tests' and the synthetic models'
// weights), encoding float32 values as any of the three dtypes.
package hf
