// Testbench for mem_tb_top: reference models (std::deque, arrays) against the storage cells under
// random valid/ready/last/addresses, plus a full-throughput phase. Usage: Vmem_tb_top [cycles] [seed]
#include "Vmem_tb_top.h"
#include "verilated.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <vector>

static uint64_t rng_state = 1;
static uint64_t rnd() {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static bool chance(unsigned percent) { return rnd() % 100 < percent; }

// Bit-field access on Verilator port types (CData/SData/IData/QData or VlWide).
template <typename T> static uint32_t get_bits(const T& v, int lsb, int w) { return (uint32_t)((uint64_t)v >> lsb) & ((1u << w) - 1); }
template <typename T> static void set_bits(T& v, int lsb, int w, uint32_t x) {
    uint64_t m = (((uint64_t)1 << w) - 1) << lsb;
    v = (T)(((uint64_t)v & ~m) | (((uint64_t)x << lsb) & m));
}
template <std::size_t N> static uint32_t get_bits(const VlWide<N>& v, int lsb, int w) {  // w <= 16, field within 2 words
    uint64_t lo = v[lsb / 32], hi = (lsb / 32 + 1 < (int)N) ? v[lsb / 32 + 1] : 0;
    return (uint32_t)(((hi << 32) | lo) >> (lsb % 32)) & ((1u << w) - 1);
}
template <std::size_t N> static void set_bits(VlWide<N>& v, int lsb, int w, uint32_t x) {
    for (int b = 0; b < w; b++) {
        int k = lsb + b;
        if ((x >> b) & 1) v[k / 32] |= (1u << (k % 32));
        else v[k / 32] &= ~(1u << (k % 32));
    }
}
#define GET1(port, i) get_bits(top->port, (i), 1)
#define SET1(port, i, x) set_bits(top->port, (i), 1, (x))
#define GET16(port, i) get_bits(top->port, 16 * (i), 16)
#define SET16(port, i, x) set_bits(top->port, 16 * (i), 16, (x))

static int errors = 0;
#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            if (errors < 20) {                                                        \
                printf("cycle %llu: ", (unsigned long long)cycle);                   \
                printf(__VA_ARGS__);                                                  \
                printf("\n");                                                         \
            }                                                                         \
            errors++;                                                                 \
        }                                                                             \
    } while (0)

// Same tables as mem_tb_top.v.
static const int NF = 12, NK = 3, NS = 5;
static const int F_DEPTH[NF] = {1, 2, 3, 16, 17, 1, 3, 5, 1000, 1, 2, 22};
static const int F_PASS[NF] = {1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0};
static const int F_RAM[NF] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0};
static const int K_DEPTH[NK] = {1, 3, 100};
static const int S_DEPTH[NS] = {1, 4, 5, 64, 100};  // 64, 100: LUTRAM full bits
static const uint64_t PAD_INIT = 128;                // they clear them during DEPTH cycles after reset
static const int S_LAT[NS] = {1, 0, 1, 1, 0};

struct Stream {  // producer/consumer state of one FIFO-like channel
    std::deque<uint32_t> model;
    unsigned peak = 0;
    bool in_valid = false;
    uint32_t in_data = 0;
    uint32_t next_value = 0;
    uint64_t pushes = 0, pops = 0;
};
struct Pad {
    std::vector<bool> full;
    std::vector<uint32_t> data;
    unsigned count = 0, peak = 0;
    bool rsp_expected = false;
    uint32_t rsp_data = 0;
    uint64_t writes = 0, reads = 0, frees = 0;
    unsigned seq_w = 0, seq_r = 0;
};

int main(int argc, char** argv) {
    uint64_t cycles = argc > 1 ? strtoull(argv[1], nullptr, 10) : 200000;
    rng_state = argc > 2 ? strtoull(argv[2], nullptr, 10) : 12345;
    auto ctx = std::make_unique<VerilatedContext>();
    auto top = std::make_unique<Vmem_tb_top>(ctx.get());
    uint64_t cycle = 0;

    top->rst = 1;
    for (int k = 0; k < 4; k++) {
        top->clk = 0;
        top->eval();
        top->clk = 1;
        top->eval();
    }
    top->rst = 0;

    std::vector<Stream> fs(NF), ks(NK);
    std::vector<Pad> ps(NS);
    for (int i = 0; i < NS; i++) {
        ps[i].full.assign(S_DEPTH[i], false);
        ps[i].data.assign(S_DEPTH[i], 0);
    }
    std::vector<uint32_t> ram(37, 0);
    bool ram_expected = false;
    uint32_t ram_rdata = 0;

    // Phases: random (with per-phase valid/ready densities), then both sides always ready.
    const uint64_t tp_start = cycles - 20000, tp_measure = cycles - 10000;
    std::vector<uint64_t> f_pops_at(NF), k_pops_at(NK), s_reads_at(NS), s_writes_at(NS);
    unsigned pin = 50, pout = 50;

    for (cycle = 0; cycle < cycles; cycle++) {
        bool tp = cycle >= tp_start;
        bool drain = cycle >= tp_start - 200 && !tp;
        if (cycle == tp_measure) {
            for (int i = 0; i < NF; i++) f_pops_at[i] = fs[i].pops;
            for (int i = 0; i < NK; i++) k_pops_at[i] = ks[i].pops;
            for (int i = 0; i < NS; i++) s_reads_at[i] = ps[i].reads, s_writes_at[i] = ps[i].writes;
        }
        if (cycle % 5000 == 0) {  // vary the densities: fill up, drain, balanced
            static const unsigned dens[][2] = {{50, 50}, {90, 20}, {20, 90}, {95, 95}, {70, 40}, {40, 70}};
            pin = dens[(cycle / 5000) % 6][0];
            pout = dens[(cycle / 5000) % 6][1];
        }

        // ---- drive inputs (stream producers hold valid/data until accepted)
        for (int i = 0; i < NF; i++) {
            Stream& s = fs[i];
            if (!s.in_valid && (tp || chance(pin))) s.in_valid = true, s.in_data = s.next_value++ & 0xffff;
            SET1(f_in_valid, i, s.in_valid);
            SET16(f_in_data, i, s.in_data);
            SET1(f_out_ready, i, tp || chance(pout));
        }
        std::vector<uint32_t> k_last(NK);
        for (int i = 0; i < NK; i++) {
            Stream& s = ks[i];
            if (!s.in_valid && (tp || chance(pin))) s.in_valid = true, s.in_data = s.next_value++ & 0xffff;
            SET1(k_in_valid, i, s.in_valid);
            SET16(k_in_data, i, s.in_data);
            SET1(k_out_ready, i, tp || chance(pout));
            k_last[i] = tp || chance(40);
            SET1(k_out_last, i, k_last[i]);
        }
        std::vector<uint32_t> sw_addr(NS), sr_addr(NS), sw_data(NS), sr_last(NS), sw_valid(NS), sr_valid(NS);
        for (int i = 0; i < NS; i++) {
            Pad& p = ps[i];
            int d = S_DEPTH[i];
            if (cycle == tp_start) p.seq_w = p.seq_r = 0;
            if (drain) {  // empty the scratchpad before the in-order phase
                sw_valid[i] = 0, sw_addr[i] = 0;
                sr_valid[i] = 1, sr_last[i] = 1, sr_addr[i] = 0;
                for (int a = 0; a < d; a++)
                    if (p.full[a]) sr_addr[i] = a;
            } else if (tp) {  // in-order ping-pong use: write 0,1,2,.. and read them back once each
                sw_valid[i] = 1, sw_addr[i] = p.seq_w % d;
                sr_valid[i] = 1, sr_addr[i] = p.seq_r % d, sr_last[i] = 1;
            } else {
                sw_valid[i] = cycle >= PAD_INIT && chance(pin);
                sr_valid[i] = cycle >= PAD_INIT && chance(pout);
                // mostly aim at cells in the right state so that transfers happen
                sw_addr[i] = rnd() % d;
                if (chance(70))
                    for (int t = 0; t < 4 && p.full[sw_addr[i]]; t++) sw_addr[i] = rnd() % d;
                sr_addr[i] = rnd() % d;
                if (chance(70))
                    for (int t = 0; t < 4 && !p.full[sr_addr[i]]; t++) sr_addr[i] = rnd() % d;
                sr_last[i] = chance(50);
            }
            sw_data[i] = rnd() & 0xffff;
            SET1(s_wr_valid, i, sw_valid[i]);
            SET16(s_wr_addr, i, sw_addr[i]);
            SET16(s_wr_data, i, sw_data[i]);
            SET1(s_rd_valid, i, sr_valid[i]);
            SET16(s_rd_addr, i, sr_addr[i]);
            SET1(s_rd_last, i, sr_last[i]);
        }
        uint32_t r_we = chance(50), r_waddr = rnd() % 37, r_wdata = rnd() & 0xffff, r_raddr = rnd() % 37;
        top->r_we = r_we;
        top->r_waddr = r_waddr;
        top->r_wdata = r_wdata;
        top->r_raddr = r_raddr;

        top->clk = 0;
        top->eval();

        // ---- check outputs before the edge, compute the transfers
        std::vector<bool> f_push(NF), f_pop(NF), k_push(NK), k_read(NK);
        for (int i = 0; i < NF; i++) {
            Stream& s = fs[i];
            unsigned size = s.model.size();
            bool out_ready = GET1(f_out_ready, i), in_ready = GET1(f_in_ready, i), out_valid = GET1(f_out_valid, i);
            CHECK(GET16(f_count, i) == size, "fifo %d: count %u, model %u", i, GET16(f_count, i), size);
            CHECK(GET16(f_peak, i) == s.peak, "fifo %d: peak %u, model %u", i, GET16(f_peak, i), s.peak);
            if (size > s.peak) s.peak = size;  // the cell's peak follows its count a cycle late
            bool exp_in_ready = size < (unsigned)F_DEPTH[i] || (F_PASS[i] && out_ready && out_valid);
            CHECK(in_ready == exp_in_ready, "fifo %d: in_ready %d, expected %d (size %u)", i, in_ready, exp_in_ready, size);
            if (!F_RAM[i]) CHECK(out_valid == (size > 0), "fifo %d: out_valid %d with %u elements", i, out_valid, size);
            else CHECK(!out_valid || size > 0, "fifo %d: out_valid while empty", i);
            if (out_valid && size > 0)
                CHECK(GET16(f_out_data, i) == s.model.front(), "fifo %d: out_data %04x, expected %04x", i, GET16(f_out_data, i),
                      s.model.front());
            f_push[i] = s.in_valid && in_ready;
            f_pop[i] = out_valid && out_ready;
        }
        for (int i = 0; i < NK; i++) {
            Stream& s = ks[i];
            unsigned size = s.model.size();
            bool out_ready = GET1(k_out_ready, i), in_ready = GET1(k_in_ready, i), out_valid = GET1(k_out_valid, i);
            CHECK(GET16(k_count, i) == size, "keep %d: count %u, model %u", i, GET16(k_count, i), size);
            CHECK(GET16(k_peak, i) == s.peak, "keep %d: peak %u, model %u", i, GET16(k_peak, i), s.peak);
            if (size > s.peak) s.peak = size;
            bool exp_in_ready = size < (unsigned)K_DEPTH[i] || (out_ready && out_valid && k_last[i]);
            CHECK(in_ready == exp_in_ready, "keep %d: in_ready %d, expected %d", i, in_ready, exp_in_ready);
            if (K_DEPTH[i] < 64) CHECK(out_valid == (size > 0), "keep %d: out_valid %d with %u elements", i, out_valid, size);
            else CHECK(!out_valid || size > 0, "keep %d: out_valid while empty", i);
            if (out_valid && size > 0)
                CHECK(GET16(k_out_data, i) == s.model.front(), "keep %d: out_data %04x, expected %04x", i, GET16(k_out_data, i),
                      s.model.front());
            k_push[i] = s.in_valid && in_ready;
            k_read[i] = out_valid && out_ready;
        }
        std::vector<bool> s_wr(NS), s_rd(NS);
        for (int i = 0; i < NS; i++) {
            Pad& p = ps[i];
            bool wr_ready = GET1(s_wr_ready, i), rd_ready = GET1(s_rd_ready, i);
            if (cycle < PAD_INIT) {
                CHECK(!GET1(s_rsp_valid, i) && GET16(s_count, i) == 0, "pad %d: activity during init", i);
                continue;
            }
            CHECK(wr_ready == !p.full[sw_addr[i]], "pad %d: wr_ready %d for cell %u (full=%d)", i, wr_ready, sw_addr[i],
                  (int)p.full[sw_addr[i]]);
            CHECK(rd_ready == p.full[sr_addr[i]], "pad %d: rd_ready %d for cell %u (full=%d)", i, rd_ready, sr_addr[i],
                  (int)p.full[sr_addr[i]]);
            CHECK(GET16(s_count, i) == p.count, "pad %d: count %u, model %u", i, GET16(s_count, i), p.count);
            CHECK(GET16(s_peak, i) == p.peak, "pad %d: peak %u, model %u", i, GET16(s_peak, i), p.peak);
            s_wr[i] = sw_valid[i] && wr_ready;
            s_rd[i] = sr_valid[i] && rd_ready;
            bool rsp_valid = GET1(s_rsp_valid, i);
            if (S_LAT[i] == 0) {
                CHECK(rsp_valid == s_rd[i], "pad %d: rsp_valid %d, read %d", i, rsp_valid, (int)s_rd[i]);
                if (s_rd[i] && p.full[sr_addr[i]])
                    CHECK(GET16(s_rsp_data, i) == p.data[sr_addr[i]], "pad %d: rsp_data %04x, expected %04x", i, GET16(s_rsp_data, i),
                          p.data[sr_addr[i]]);
            } else {
                CHECK(rsp_valid == p.rsp_expected, "pad %d: rsp_valid %d, expected %d", i, rsp_valid, (int)p.rsp_expected);
                if (p.rsp_expected)
                    CHECK(GET16(s_rsp_data, i) == p.rsp_data, "pad %d: rsp_data %04x, expected %04x", i, GET16(s_rsp_data, i), p.rsp_data);
            }
        }
        if (ram_expected) CHECK(top->r_rdata == ram_rdata, "ram: rdata %04x, expected %04x", top->r_rdata, ram_rdata);

        top->clk = 1;
        top->eval();

        // ---- update the models
        for (int i = 0; i < NF; i++) {
            Stream& s = fs[i];
            if (f_pop[i] && !s.model.empty()) s.model.pop_front(), s.pops++;
            if (f_push[i]) s.model.push_back(s.in_data), s.in_valid = false, s.pushes++;
        }
        for (int i = 0; i < NK; i++) {
            Stream& s = ks[i];
            if (k_read[i] && k_last[i] && !s.model.empty()) s.model.pop_front(), s.pops++;
            if (k_push[i]) s.model.push_back(s.in_data), s.in_valid = false, s.pushes++;
        }
        for (int i = 0; i < NS; i++) {
            Pad& p = ps[i];
            p.rsp_expected = s_rd[i];
            if (s_rd[i]) {
                p.rsp_data = p.data[sr_addr[i]];
                p.reads++;
                p.seq_r += sr_last[i];
                if (sr_last[i]) p.full[sr_addr[i]] = false, p.count--, p.frees++;
            }
            if (s_wr[i]) {
                p.full[sw_addr[i]] = true, p.data[sw_addr[i]] = sw_data[i], p.count++, p.writes++, p.seq_w++;
                if (p.count > p.peak) p.peak = p.count;
            }
        }
        ram_expected = true;
        ram_rdata = ram[r_raddr];  // read-first: the old value on a same-address write
        if (r_we) ram[r_waddr] = r_wdata;
    }

    // ---- summary and throughput checks (last 10000 cycles, both sides always ready)
    const double window = (double)(cycles - tp_measure);
    for (int i = 0; i < NF; i++) {
        double rate = (fs[i].pops - f_pops_at[i]) / window;
        int need = F_RAM[i] ? (F_PASS[i] ? 3 : 4) : (F_PASS[i] ? 1 : 2);
        bool full_rate = F_DEPTH[i] >= need;
        printf("fifo%d depth=%d %s pass=%d: %llu transfers, peak %u, throughput %.3f/cycle\n", i, F_DEPTH[i], F_RAM[i] ? "ram" : "reg",
               F_PASS[i], (unsigned long long)fs[i].pops, fs[i].peak, rate);
        if (full_rate) CHECK(rate > 0.999, "fifo %d: throughput %.3f < 1 with both sides ready", i, rate);
        CHECK(fs[i].pops > 1000, "fifo %d: too few transfers", i);
    }
    for (int i = 0; i < NK; i++) {
        double rate = (ks[i].pops - k_pops_at[i]) / window;
        printf("keep%d depth=%d: %llu values freed, peak %u, throughput %.3f/cycle\n", i, K_DEPTH[i], (unsigned long long)ks[i].pops,
               ks[i].peak, rate);
        CHECK(rate > 0.999, "keep %d: throughput %.3f < 1 with both sides ready", i, rate);
    }
    for (int i = 0; i < NS; i++) {
        double rrate = (ps[i].reads - s_reads_at[i]) / window, wrate = (ps[i].writes - s_writes_at[i]) / window;
        printf("pad%d depth=%d latency=%d: %llu writes, %llu reads (%llu last), peak %u, in-order throughput w %.3f r %.3f/cycle\n", i,
               S_DEPTH[i], S_LAT[i], (unsigned long long)ps[i].writes, (unsigned long long)ps[i].reads, (unsigned long long)ps[i].frees,
               ps[i].peak, wrate, rrate);
        if (S_DEPTH[i] >= 2) CHECK(rrate > 0.999 && wrate > 0.999, "pad %d: in-order throughput below 1", i);
        CHECK(ps[i].writes > 1000 && ps[i].frees > 500, "pad %d: too few transfers", i);
    }
    printf("%llu cycles, %d errors\n", (unsigned long long)cycles, errors);
    top->final();
    return errors ? 1 : 0;
}
