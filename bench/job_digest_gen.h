#pragma once
// A large job of rank digests made from a few real ranks (bench_job_digests, and the test
// that a 512-rank job opens): rank k copies real rank k mod n, varied so that no two ranks
// read alike and the job still holds together as one synchronous job:
//   - its own extra work: 0-3 % of the base's median step more host time at each step's
//     start (the rank's "cpu_exec"), chosen per rank from a fixed seed;
//   - one straggler (rank `straggler`): `stragglerDelayNs` more data loading per step;
//   - the others wait for the slowest: each waits the difference before its step's first
//     collective can end (it, and the collectives in flight with it, last longer by it: exposed
//     communication), so every rank's step grows by the same amount and the collectives' ends
//     stay together;
//   - its host clock shifted by 0-5 s (the ends align once offset, as across hosts);
//   - distributedInfo: rank k of `ranks`.
// Each rank is written as OUT/rank-K/digest.kinetoscope.json beside OUT/rank-K/trace.json, a
// symbolic link to its base's real trace: the digest is fresh for it (its size and time are
// the real trace's), and opening the rank's own pages reads that real trace.
#include "core/job/job.h"

#include <filesystem>
#include <string>
#include <vector>

namespace kinetoscope::bench {

struct DigestJobSpec
{
    int ranks = 512;
    int straggler = -1;  // the rank made slow; -1: none
    int64_t stragglerDelayNs = 0;
    uint64_t seed = 53;
};

// The variation of base rank `base` as rank `k` (see above); `slowestExtraNs` is the largest
// extra own work of any rank (the straggler's included), what every step grows by.
job::Rank variedRank(const job::Rank& base, int k, const DigestJobSpec& spec,
                     int64_t slowestExtraNs);
// Every rank's extra own work per step (the straggler's delay included), by rank.
std::vector<int64_t> extraWorkNs(const std::vector<job::Rank>& bases, const DigestJobSpec& spec);

// Reads each base trace (in the order given: rank k copies bases[k % n]) and writes the job
// into `out` (made if missing; rank folders already there are replaced). False with `error`.
bool writeDigestJob(const std::vector<std::string>& baseTraces, const std::filesystem::path& out,
                    const DigestJobSpec& spec, std::string& error);

}  // namespace kinetoscope::bench
