"""Read a TensorBoard log folder with TensorBoard's own reader, for TestTensorBoardReader.

Usage: python3 tb_read.py LOGDIR. Prints one JSON object: for each run TensorBoard finds
under LOGDIR, each scalar tag's [step, value] pairs and each histogram tag's
[step, min, max, num, sum, bucket_limit, bucket] rows.
"""
import json
import sys

from tensorboard.backend.event_processing import event_accumulator, event_multiplexer

guidance = {event_accumulator.SCALARS: 0, event_accumulator.HISTOGRAMS: 0}
mux = event_multiplexer.EventMultiplexer(size_guidance=guidance)
mux.AddRunsFromDirectory(sys.argv[1])
mux.Reload()
out = {}
for run, tags in mux.Runs().items():
    acc = mux.GetAccumulator(run)
    out[run] = {
        "scalars": {t: [[e.step, e.value] for e in acc.Scalars(t)] for t in tags["scalars"]},
        "histograms": {
            t: [
                [e.step, e.histogram_value.min, e.histogram_value.max, e.histogram_value.num,
                 e.histogram_value.sum, list(e.histogram_value.bucket_limit), list(e.histogram_value.bucket)]
                for e in acc.Histograms(t)
            ]
            for t in tags["histograms"]
        },
    }
json.dump(out, sys.stdout, sort_keys=True)
