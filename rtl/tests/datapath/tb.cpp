// Driver for rtl/tests/datapath.rs: runs every datapath of the generated testbench top
// (tb_top, ports and names in the generated tb_ports.h) on the vectors the test wrote, one
// vector per cycle in which ce = 1, ce = 0 in random cycles (then random junk on the inputs,
// which must be ignored), and checks every output in every cycle against the expected value
// of the vector presented LATENCY ce-cycles earlier.
// Usage: Vtb_top VECTORS_FILE SEED
// VECTORS_FILE (little-endian u64): n_dp, n_vec; per datapath: latency, number of inputs;
// per datapath, per vector: the inputs, the expected output, 1 if the output is defined.
#include "Vtb_top.h"
#include "verilated.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>
#include "tb_ports.h"

static uint64_t rng_state;
static uint64_t rng() {
    rng_state += 0x9E3779B97F4A7C15ull;
    uint64_t z = rng_state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s VECTORS SEED\n", argv[0]);
        return 2;
    }
    FILE* f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    rng_state = strtoull(argv[2], nullptr, 0);
    auto word = [&]() {
        uint64_t x;
        if (fread(&x, 8, 1, f) != 1) {
            fprintf(stderr, "short vectors file\n");
            exit(2);
        }
        return x;
    };
    const uint64_t n_dp = word(), n_vec = word();
    if (n_dp != N_DP) {
        fprintf(stderr, "vectors for %llu datapaths, testbench has %d\n", (unsigned long long)n_dp, N_DP);
        return 2;
    }
    std::vector<uint64_t> lat(n_dp), n_in(n_dp);
    uint64_t max_lat = 0;
    for (uint64_t d = 0; d < n_dp; d++) {
        lat[d] = word();
        n_in[d] = word();
        if (lat[d] > max_lat) max_lat = lat[d];
    }
    std::vector<std::vector<uint64_t>> vec(n_dp);
    for (uint64_t d = 0; d < n_dp; d++) {
        vec[d].resize(n_vec * (n_in[d] + 2));
        for (auto& x : vec[d]) x = word();
    }
    fclose(f);

    auto ctx = std::make_unique<VerilatedContext>();
    auto top = std::make_unique<Vtb_top>(ctx.get());
    uint64_t ce_count = 0, cycles = 0, checks = 0, vectors = 0, errors = 0;
    std::vector<uint64_t> junk(64);
    while (ce_count < n_vec + max_lat + 1) {
        const bool ce = cycles < 4 ? true : rng() % 4 != 0;
        top->clk = 0;
        top->ce = ce;
        for (uint64_t d = 0; d < n_dp; d++) {
            if (ce && ce_count < n_vec) {
                set_in(top.get(), (int)d, &vec[d][ce_count * (n_in[d] + 2)]);
            } else {
                for (uint64_t k = 0; k < n_in[d]; k++) junk[k] = rng();
                set_in(top.get(), (int)d, junk.data());
            }
        }
        top->eval();
        for (uint64_t d = 0; d < n_dp; d++) {
            if (ce_count < lat[d] || ce_count - lat[d] >= n_vec) continue;
            const uint64_t k = ce_count - lat[d];
            const uint64_t* v = &vec[d][k * (n_in[d] + 2)];
            if (!v[n_in[d] + 1]) continue;
            checks++;
            if (ce) vectors++;
            const uint64_t got = get_out(top.get(), (int)d);
            if (got != v[n_in[d]]) {
                if (errors < 20) {
                    printf("MISMATCH %s vector %llu (cycle %llu, ce %d): inputs", NAME[d], (unsigned long long)k,
                           (unsigned long long)cycles, (int)ce);
                    for (uint64_t j = 0; j < n_in[d]; j++) printf(" %016llx", (unsigned long long)v[j]);
                    printf(" expected %016llx got %016llx\n", (unsigned long long)v[n_in[d]], (unsigned long long)got);
                }
                errors++;
            }
        }
        top->clk = 1;
        top->eval();
        if (ce) ce_count++;
        cycles++;
    }
    top->final();
    printf("%llu datapaths, %llu vectors, %llu checks, %llu cycles, %llu errors\n", (unsigned long long)n_dp,
           (unsigned long long)vectors, (unsigned long long)checks, (unsigned long long)cycles, (unsigned long long)errors);
    return errors ? 1 : 0;
}
