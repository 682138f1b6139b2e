package derived

// PassBits is the pass line of bit error (a), in bits: Paper I's criterion for the
// bijection and HMM tunnels (belief accumulation and belief transport), which compare's
// verdicts, the report, the figures and the dashboard's reference line all apply.
const PassBits = 0.15
