// Testbench for tests/fanout.rs: the register trees of src/fanout.rs against their stated
// latencies. Args: cycles seed d0 d1 d2 d3 n0 l0 n1 l1 n2 l2 n3 l3 (fan-out tree depths, then
// AND trees' input counts and latencies). Every cycle drives a random `src` and random `ins`;
// checks that every load of fan-out k shows `src` of d_k cycles before (all loads equal: the
// top gives their AND and OR) and that AND tree k shows the AND of its n_k inputs l_k cycles
// before.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "Vfanout_top.h"
#include "verilated.h"

int main(int argc, char** argv) {
    if (argc != 15) { std::fprintf(stderr, "usage: cycles seed d0..d3 n0 l0 .. n3 l3\n"); return 2; }
    const long cycles = std::atol(argv[1]);
    uint64_t s = std::strtoull(argv[2], nullptr, 0);
    int d[4], n[4], l[4];
    for (int k = 0; k < 4; k++) d[k] = std::atoi(argv[3 + k]);
    for (int k = 0; k < 4; k++) { n[k] = std::atoi(argv[7 + 2 * k]); l[k] = std::atoi(argv[8 + 2 * k]); }
    auto next = [&s] { s += 0x9e3779b97f4a7c15ull; uint64_t z = s; z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; return z ^ (z >> 31); };
    Vfanout_top top;
    std::vector<int> src;            // src driven before each rising edge
    std::vector<uint64_t> ins;
    long errors = 0;
    for (long t = 0; t < cycles; t++) {
        top.src = next() & 1;
        // Mostly ones, so that ANDs are sometimes true.
        uint64_t v = next() | next() | next();
        top.ins = v;
        src.push_back(top.src);
        ins.push_back(v);
        top.clk = 0; top.eval();
        top.clk = 1; top.eval();
        // After edge t: a register chain of depth D shows what was driven before edge t - D + 1.
        for (int k = 0; k < 4; k++) {
            long at = t - d[k] + 1;
            if (at < 0) continue;
            int all = (top.f_all >> k) & 1, any = (top.f_any >> k) & 1;
            if (all != src[at] || any != src[at]) {
                if (errors++ < 10) std::printf("cycle %ld: fan-out %d shows all=%d any=%d, want %d\n", t, k, all, any, src[at]);
            }
        }
        for (int k = 0; k < 4; k++) {
            long at = t - l[k] + 1;
            if (at < 0) continue;
            uint64_t mask = n[k] == 64 ? ~0ull : ((1ull << n[k]) - 1);
            int want = (ins[at] & mask) == mask;
            int got = (top.a_out >> k) & 1;
            if (got != want) {
                if (errors++ < 10) std::printf("cycle %ld: AND tree %d shows %d, want %d\n", t, k, got, want);
            }
        }
    }
    std::printf("%ld cycles, %ld errors\n", cycles, errors);
    return errors ? 1 : 0;
}
