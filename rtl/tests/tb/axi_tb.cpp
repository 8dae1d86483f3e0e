// Testbench for axi_tb_top: AXI4 slave memory models with random latency and back-pressure that check
// the protocol of dpn_axi_read / dpn_axi_write, data checks against expectations, zero-jitter
// throughput runs, and host sequences for dpn_axi_lite_ctrl. Usage: Vaxi_tb_top [commands] [seed]
#include "Vaxi_tb_top.h"
#include "verilated.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
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

static std::unique_ptr<Vaxi_tb_top> top;
static uint64_t cycle = 0;
static int errors = 0;
#define CHECK(cond, ...)                                        \
    do {                                                        \
        if (!(cond)) {                                          \
            if (errors < 30) {                                  \
                printf("cycle %llu: ", (unsigned long long)cycle); \
                printf(__VA_ARGS__);                            \
                printf("\n");                                   \
            }                                                   \
            if (++errors > 1000) {                              \
                printf("too many errors\n");                     \
                exit(1);                                        \
            }                                                   \
        }                                                       \
    } while (0)

// Data ports are QData or VlWide (32-bit words, little-endian); strobe ports are CData/QData/VlWide
// and are accessed as bytes. x86 is little-endian, so both views are the port's bit order.
template <typename T> static uint32_t* words(T& port) { return reinterpret_cast<uint32_t*>(&port); }
template <typename T> static uint8_t* bytes_of(T& port) { return reinterpret_cast<uint8_t*>(&port); }

static const uint64_t BASE = 0x123400000000ull;  // above 4 GiB: all 64 address bits matter
static const uint64_t MEM = 1 << 20;
static uint32_t pattern(uint64_t addr) {  // read memory contents: a hash of the word address
    uint64_t x = (addr >> 2) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(x >> 29) ^ (uint32_t)x;
}

// Agents are called in three steps each cycle: drive() sets inputs, observe() sees the settled
// outputs before the clock edge (handshakes happen here), and nothing after the edge.
struct Agent {
    virtual void drive() = 0;
    virtual void observe() = 0;
    virtual ~Agent() {}
};
static std::vector<Agent*> agents;
static const uint64_t MAX_CYCLES = 5000000;  // a hang fails the test instead of stalling it
static void step() {
    if (cycle >= MAX_CYCLES) {
        printf("cycle %llu: cycle limit reached, %d errors so far\n", (unsigned long long)cycle, errors);
        exit(1);
    }
    for (Agent* a : agents) a->drive();
    top->clk = 0;
    top->eval();
    for (Agent* a : agents) a->observe();
    top->clk = 1;
    top->eval();
    cycle++;
}

struct Timing {  // slave behaviour
    unsigned p_addr_ready, p_data, p_resp;  // percent of cycles the slave is willing
    unsigned lat_min, lat_max;              // address accepted -> first beat / last W -> B, extra cycles
    unsigned p_consumer;                    // percent of cycles out_ready (read) / in_valid (write)
};
static const Timing RANDOM = {60, 70, 60, 0, 30, 70};
static const Timing FAST = {100, 100, 100, 0, 0, 100};

struct Burst {
    uint64_t addr;
    unsigned len, beat = 0;
    uint64_t due;
};

static void check_burst(const char* who, uint64_t addr, unsigned len, unsigned size, unsigned burst, unsigned bytes, unsigned max_burst) {
    CHECK(len + 1 <= max_burst, "%s: len %u > MAX_BURST-1", who, len);
    CHECK((1u << size) == bytes, "%s: size %u for %u-byte beats", who, size, bytes);
    CHECK(burst == 1, "%s: burst type %u, not INCR", who, burst);
    CHECK(addr % bytes == 0, "%s: address %llx not aligned", who, (unsigned long long)addr);
    CHECK((addr & 4095) + (uint64_t)(len + 1) * bytes <= 4096, "%s: burst at %llx of %u beats crosses 4 KiB", who, (unsigned long long)addr,
          len + 1);
    CHECK(addr >= BASE && addr + (uint64_t)(len + 1) * bytes <= BASE + MEM, "%s: burst at %llx outside memory", who,
          (unsigned long long)addr);
}

static uint64_t random_beats(unsigned bytes, uint64_t* addr_out, bool near_page) {
    unsigned kind = rnd() % 10;
    uint64_t beats = kind < 3 ? 1 + rnd() % 4 : kind < 6 ? 1 + rnd() % 64 : kind < 8 ? 200 + rnd() % 400 : 1 + rnd() % (3 * 4096 / bytes);
    uint64_t span = beats * bytes;
    uint64_t off = (rnd() % (MEM - span)) / bytes * bytes;
    if (near_page || kind >= 8) {  // start a few beats before a 4 KiB boundary
        uint64_t page = (off / 4096 + 1) * 4096;
        uint64_t back = (1 + rnd() % 8) * bytes;
        if (page >= back && page - back + span <= MEM) off = page - back;
    }
    *addr_out = BASE + off;
    return beats;
}

// ------------------------------------------------------------------------------------------------
#define READ_PORTS(P)                                                                                                               \
    &top->P##_cmd_valid, &top->P##_cmd_ready, &top->P##_cmd_addr, &top->P##_cmd_beats, &top->P##_out_valid, &top->P##_out_ready,  \
        words(top->P##_out_data), &top->P##_out_last, &top->P##_m_axi_arvalid, &top->P##_m_axi_arready, &top->P##_m_axi_araddr,    \
        &top->P##_m_axi_arlen, &top->P##_m_axi_arsize, &top->P##_m_axi_arburst, &top->P##_m_axi_rvalid, &top->P##_m_axi_rready,     \
        words(top->P##_m_axi_rdata), &top->P##_m_axi_rresp, &top->P##_m_axi_rlast, &top->P##_m_axi_rid, &top->P##_error

struct ReadTest : Agent {
    CData *cmd_valid, *cmd_ready;
    QData* cmd_addr;
    IData* cmd_beats;
    CData *out_valid, *out_ready;
    uint32_t* out_data;
    CData *out_last, *arvalid, *arready;
    QData* araddr;
    CData *arlen, *arsize, *arburst, *rvalid, *rready;
    uint32_t* rdata;
    CData *rresp, *rlast, *rid, *error;
    const char* name;
    unsigned bytes, max_outstanding, max_burst;
    Timing t = RANDOM;

    std::deque<std::pair<uint64_t, uint64_t>> cmds;  // to send
    std::deque<std::pair<uint64_t, bool>> expect;    // beat address, last
    std::deque<Burst> bursts;                        // accepted by the slave
    bool ar_pending = false;                         // AR valid and not accepted last cycle
    uint64_t ar_prev_addr = 0;
    unsigned ar_prev_len = 0;
    bool r_held = false;
    uint64_t beats_out = 0, cmds_done = 0, ars = 0;

    ReadTest(const char* n, unsigned dw, unsigned mo, unsigned mb, CData* a, CData* b, QData* c, IData* d, CData* e, CData* f, uint32_t* g,
             CData* h, CData* i, CData* j, QData* k, CData* l, CData* m, CData* nn, CData* o, CData* p, uint32_t* q, CData* r, CData* s,
             CData* u, CData* v)
        : cmd_valid(a), cmd_ready(b), cmd_addr(c), cmd_beats(d), out_valid(e), out_ready(f), out_data(g), out_last(h), arvalid(i),
          arready(j), araddr(k), arlen(l), arsize(m), arburst(nn), rvalid(o), rready(p), rdata(q), rresp(r), rlast(s), rid(u), error(v),
          name(n), bytes(dw / 8), max_outstanding(mo), max_burst(mb) {}

    void drive() override {
        *cmd_valid = !cmds.empty();
        if (!cmds.empty()) *cmd_addr = cmds.front().first, *cmd_beats = (IData)cmds.front().second;
        *arready = chance(t.p_addr_ready);
        *out_ready = chance(t.p_consumer);
        *rresp = 0, *rid = 0;
        if (!r_held) {
            *rvalid = !bursts.empty() && bursts.front().due <= cycle && chance(t.p_data);
            r_held = *rvalid;
        }
        if (*rvalid) {
            Burst& b = bursts.front();
            uint64_t a = b.addr + (uint64_t)b.beat * bytes;
            for (unsigned w = 0; w < bytes / 4; w++) rdata[w] = pattern(a + 4 * w);
            *rlast = b.beat == b.len;
        } else {
            *rlast = 0;
        }
    }
    void observe() override {
        CHECK(!*error, "%s: error output set", name);
        if (*cmd_valid && *cmd_ready) {
            auto c = cmds.front();
            cmds.pop_front();
            for (uint64_t i = 0; i < c.second; i++) expect.push_back({c.first + i * bytes, i + 1 == c.second});
        }
        if (ar_pending)
            CHECK(*arvalid && *araddr == ar_prev_addr && *arlen == ar_prev_len, "%s: AR changed before it was accepted", name);
        if (*arvalid && *arready) {
            check_burst(name, *araddr, *arlen, *arsize, *arburst, bytes, max_burst);
            CHECK(bursts.size() + 1 <= max_outstanding, "%s: more than %u read bursts outstanding", name, max_outstanding);
            unsigned lat = t.lat_min + (t.lat_max > t.lat_min ? rnd() % (t.lat_max - t.lat_min + 1) : 0);
            bursts.push_back({*araddr, *arlen, 0, cycle + 1 + lat});
            ars++;
        }
        ar_pending = *arvalid && !*arready;
        ar_prev_addr = *araddr, ar_prev_len = *arlen;
        // The engine reserves buffer space before each AR: R is never back-pressured.
        CHECK(!*rvalid || *rready, "%s: R back-pressured", name);
        if (*rvalid && *rready) {
            Burst& b = bursts.front();
            r_held = false;
            if (b.beat++ == b.len) bursts.pop_front();
        }
        if (*out_valid && *out_ready) {
            CHECK(!expect.empty(), "%s: output beat with no command", name);
            if (!expect.empty()) {
                auto e = expect.front();
                expect.pop_front();
                bool ok = true;
                for (unsigned w = 0; w < bytes / 4; w++) ok &= out_data[w] == pattern(e.first + 4 * w);
                CHECK(ok, "%s: wrong data for address %llx", name, (unsigned long long)e.first);
                CHECK(*out_last == e.second, "%s: out_last %d, expected %d", name, *out_last, (int)e.second);
                beats_out++;
                cmds_done += e.second;
            }
        }
    }
    bool idle() const { return cmds.empty() && expect.empty() && bursts.empty(); }
};

// ------------------------------------------------------------------------------------------------
#define WRITE_PORTS(P)                                                                                                              \
    &top->P##_cmd_valid, &top->P##_cmd_ready, &top->P##_cmd_addr, &top->P##_cmd_beats, &top->P##_in_valid, &top->P##_in_ready,    \
        words(top->P##_in_data), bytes_of(top->P##_in_strb), &top->P##_m_axi_awvalid, &top->P##_m_axi_awready, &top->P##_m_axi_awaddr, \
        &top->P##_m_axi_awlen, &top->P##_m_axi_awsize, &top->P##_m_axi_awburst, &top->P##_m_axi_wvalid, &top->P##_m_axi_wready,     \
        words(top->P##_m_axi_wdata), bytes_of(top->P##_m_axi_wstrb), &top->P##_m_axi_wlast, &top->P##_m_axi_bvalid,                    \
        &top->P##_m_axi_bready, &top->P##_m_axi_bresp, &top->P##_m_axi_bid, &top->P##_cmd_done, &top->P##_done_count, &top->P##_error

struct WriteTest : Agent {
    CData *cmd_valid, *cmd_ready;
    QData* cmd_addr;
    IData* cmd_beats;
    CData *in_valid, *in_ready;
    uint32_t* in_data;
    uint8_t* in_strb;
    CData *awvalid, *awready;
    QData* awaddr;
    CData *awlen, *awsize, *awburst, *wvalid, *wready;
    uint32_t* wdata;
    uint8_t* wstrb;
    CData *wlast, *bvalid, *bready, *bresp, *bid, *cmd_done;
    IData* done_count;
    CData* error;
    const char* name;
    unsigned bytes, max_outstanding, max_burst;
    Timing t = RANDOM;

    std::vector<uint8_t> mem, ref;
    struct Beat {
        std::vector<uint32_t> data;
        std::vector<uint8_t> strb;
    };
    std::deque<std::pair<uint64_t, uint64_t>> cmds;
    std::deque<Beat> data;            // the data stream still to send
    std::deque<Burst> aw;             // accepted, W not complete
    std::deque<Burst> b_wait;         // W complete, B not sent
    std::vector<uint64_t> cmd_end;    // cumulative bytes at the end of each command
    uint64_t total_bytes = 0, acked_bytes = 0, issued = 0;
    unsigned outstanding = 0;         // AW accepted, B not yet handshaken
    bool aw_pending = false, b_held = false, in_held = false;
    uint64_t aw_prev_addr = 0;
    unsigned aw_prev_len = 0;
    uint64_t w_beats = 0, next_free = 0, done_seen = 0;

    WriteTest(const char* n, unsigned dw, unsigned mo, unsigned mb, CData* a, CData* b, QData* c, IData* d, CData* e, CData* f, uint32_t* g,
              uint8_t* g2, CData* h, CData* i, QData* j, CData* k, CData* l, CData* m, CData* nn, CData* o, uint32_t* p, uint8_t* q,
              CData* r, CData* s, CData* u, CData* v, CData* w, CData* x, IData* y, CData* z)
        : cmd_valid(a), cmd_ready(b), cmd_addr(c), cmd_beats(d), in_valid(e), in_ready(f), in_data(g), in_strb(g2), awvalid(h), awready(i),
          awaddr(j), awlen(k), awsize(l), awburst(m), wvalid(nn), wready(o), wdata(p), wstrb(q), wlast(r), bvalid(s), bready(u), bresp(v),
          bid(w), cmd_done(x), done_count(y), error(z), name(n), bytes(dw / 8), max_outstanding(mo), max_burst(mb), mem(MEM, 0),
          ref(MEM, 0) {}

    // A new command into a fresh region (regions never overlap while in flight).
    bool add_command(uint64_t beats, bool near_page, bool full_strobes) {
        uint64_t span = beats * bytes;
        uint64_t off = (next_free + (rnd() % 4) * 4096) / bytes * bytes;
        if (near_page) off = (off / 4096 + 1) * 4096 - (1 + rnd() % 8) * bytes;
        if (off + span > MEM) return false;
        next_free = off + span;
        cmds.push_back({BASE + off, beats});
        for (uint64_t i = 0; i < beats; i++) {
            Beat bt;
            for (unsigned w = 0; w < bytes / 4; w++) bt.data.push_back((uint32_t)rnd());
            for (unsigned w = 0; w < bytes / 8; w++) bt.strb.push_back(full_strobes ? 0xff : (uint8_t)rnd());
            for (unsigned by = 0; by < bytes; by++)
                if ((bt.strb[by / 8] >> (by % 8)) & 1) ref[off + i * bytes + by] = (uint8_t)(bt.data[by / 4] >> (8 * (by % 4)));
            data.push_back(bt);
        }
        total_bytes += span;
        cmd_end.push_back(total_bytes);
        issued++;
        return true;
    }
    void drive() override {
        *cmd_valid = !cmds.empty();
        if (!cmds.empty()) *cmd_addr = cmds.front().first, *cmd_beats = (IData)cmds.front().second;
        if (!in_held) in_held = !data.empty() && chance(t.p_consumer);
        *in_valid = in_held;
        if (in_held) {
            for (unsigned w = 0; w < bytes / 4; w++) in_data[w] = data.front().data[w];
            for (unsigned w = 0; w < bytes / 8; w++) in_strb[w] = data.front().strb[w];
        }
        *awready = chance(t.p_addr_ready);
        *wready = chance(t.p_data);
        *bresp = 0, *bid = 0;
        if (!b_held) b_held = !b_wait.empty() && b_wait.front().due <= cycle && chance(t.p_resp);
        *bvalid = b_held;
    }
    void observe() override {
        CHECK(!*error, "%s: error output set", name);
        // cmd_done (registered) reflects the B handshakes up to the previous cycle
        uint64_t expect_done = 0;
        while (expect_done < cmd_end.size() && cmd_end[expect_done] <= acked_bytes) expect_done++;
        CHECK(*done_count == expect_done, "%s: done_count %u, expected %llu", name, *done_count, (unsigned long long)expect_done);
        if (*cmd_done) done_seen++;
        CHECK(done_seen == *done_count, "%s: %llu cmd_done pulses, done_count %u", name, (unsigned long long)done_seen, *done_count);
        if (*cmd_valid && *cmd_ready) cmds.pop_front();
        if (aw_pending)
            CHECK(*awvalid && *awaddr == aw_prev_addr && *awlen == aw_prev_len, "%s: AW changed before it was accepted", name);
        if (*awvalid && *awready) {
            check_burst(name, *awaddr, *awlen, *awsize, *awburst, bytes, max_burst);
            CHECK(outstanding + 1 <= max_outstanding, "%s: more than %u write bursts outstanding", name, max_outstanding);
            outstanding++;
            aw.push_back({*awaddr, *awlen, 0, 0});
        }
        aw_pending = *awvalid && !*awready;
        aw_prev_addr = *awaddr, aw_prev_len = *awlen;
        if (*wvalid && *wready) {
            CHECK(!aw.empty(), "%s: W beat before its AW was accepted", name);
            CHECK(*in_valid && *in_ready, "%s: W handshake without an input transfer", name);
            if (!aw.empty()) {
                Burst& b = aw.front();
                CHECK(*wlast == (b.beat == b.len), "%s: wlast %d on beat %u of %u", name, *wlast, b.beat, b.len + 1);
                uint64_t off = b.addr - BASE + (uint64_t)b.beat * bytes;
                for (unsigned by = 0; by < bytes; by++)
                    if ((wstrb[by / 8] >> (by % 8)) & 1) mem[off + by] = (uint8_t)(wdata[by / 4] >> (8 * (by % 4)));
                w_beats++;
                if (b.beat++ == b.len) {
                    unsigned lat = t.lat_min + (t.lat_max > t.lat_min ? rnd() % (t.lat_max - t.lat_min + 1) : 0);
                    b.due = cycle + 1 + lat;
                    b_wait.push_back(b);
                    aw.pop_front();
                }
            }
        }
        if (*in_valid && *in_ready) {
            CHECK(*wvalid && *wready, "%s: input transfer without a W handshake", name);
            data.pop_front();
            in_held = false;
        }
        if (*bvalid && *bready) {
            Burst& b = b_wait.front();
            acked_bytes += (uint64_t)(b.len + 1) * bytes;
            outstanding--;
            b_wait.pop_front();
            b_held = false;
        }
    }
    bool idle() const { return cmds.empty() && data.empty() && aw.empty() && b_wait.empty() && *done_count == issued; }
    void compare_and_restart() {  // all commands done: memory must equal the reference
        CHECK(mem == ref, "%s: memory differs from the expected contents", name);
        next_free = (rnd() % 64) * bytes;
    }
};

// ------------------------------------------------------------------------------------------------
static bool run_until(std::function<bool()> done, uint64_t limit, const char* what) {
    uint64_t start = cycle;
    while (!done()) {
        if (cycle - start > limit) {
            CHECK(false, "timeout waiting for %s", what);
            return false;
        }
        step();
    }
    return true;
}

static void test_read(ReadTest& r, unsigned ncmds) {
    r.t = RANDOM;
    for (unsigned i = 0; i < ncmds; i++) {
        uint64_t addr, beats = random_beats(r.bytes, &addr, i % 7 == 0);
        r.cmds.push_back({addr, beats});
        if (i % 50 == 49) r.t.p_consumer = 10 + rnd() % 91, r.t.lat_max = rnd() % 60;
        if (r.cmds.size() > 8) run_until([&] { return r.cmds.size() <= 8; }, 1000000, "read commands");
    }
    run_until([&] { return r.idle(); }, 2000000, "read completion");
    printf("%s: %llu commands, %llu beats, %llu bursts, random timing: ok\n", r.name, (unsigned long long)r.cmds_done,
           (unsigned long long)r.beats_out, (unsigned long long)r.ars);
}

static double read_throughput(ReadTest& r, uint64_t beats_per_cmd, uint64_t total) {
    r.t = FAST;
    uint64_t b0 = r.beats_out, c0 = cycle;
    for (uint64_t sent = 0; sent < total; sent += beats_per_cmd) {
        r.cmds.push_back({BASE + (sent * r.bytes) % (MEM / 2), beats_per_cmd});
        run_until([&] { return r.cmds.size() <= 4; }, 100000, "read commands");
    }
    run_until([&] { return r.idle(); }, 1000000, "read completion");
    return (double)(r.beats_out - b0) / (double)(cycle - c0);
}

static void test_write(WriteTest& w, unsigned ncmds) {
    w.t = RANDOM;
    for (unsigned i = 0; i < ncmds; i++) {
        uint64_t dummy, beats = random_beats(w.bytes, &dummy, false);
        if (!w.add_command(beats, i % 5 == 0, i % 3 != 0)) {
            run_until([&] { return w.idle(); }, 2000000, "write completion");
            w.compare_and_restart();
            w.add_command(beats, false, true);
        }
        if (i % 50 == 49) w.t.p_consumer = 10 + rnd() % 91, w.t.lat_max = rnd() % 60;
        if (w.cmds.size() > 8) run_until([&] { return w.cmds.size() <= 8; }, 1000000, "write commands");
    }
    run_until([&] { return w.idle(); }, 2000000, "write completion");
    w.compare_and_restart();
    printf("%s: %llu commands, %llu beats written, random timing: ok\n", w.name, (unsigned long long)w.issued,
           (unsigned long long)w.w_beats);
}

static double write_throughput(WriteTest& w, uint64_t beats_per_cmd, uint64_t total) {
    w.t = FAST;
    run_until([&] { return w.idle(); }, 100000, "write idle");
    w.compare_and_restart();
    w.next_free = 0;
    uint64_t b0 = w.w_beats, c0 = cycle;
    for (uint64_t sent = 0; sent < total; sent += beats_per_cmd) {
        w.next_free = (sent * w.bytes) % (MEM / 2);
        if (!w.add_command(beats_per_cmd, false, true)) break;
        w.next_free -= 0;  // regions are consecutive: add_command adds no gap when rnd()%4 == 0 only
        run_until([&] { return w.cmds.size() <= 4; }, 100000, "write commands");
    }
    run_until([&] { return w.idle(); }, 1000000, "write completion");
    double rate = (double)(w.w_beats - b0) / (double)(cycle - c0);
    w.compare_and_restart();
    return rate;
}

// ------------------------------------------------------------------------------------------------
struct Kernel : Agent {  // a kernel behind ap_ctrl_hs: takes ap_start, runs `run_len` cycles, ap_done
    bool busy = false;
    uint64_t until = 0, runs = 0;
    unsigned run_len = 20;
    bool ready_now = false, done_now = false;
    void drive() override {
        ready_now = !busy && top->c_ap_start;
        done_now = busy && cycle >= until;
        top->c_ap_ready = ready_now;
        top->c_ap_done = done_now;
        top->c_ap_idle = !busy;
    }
    void observe() override {
        if (done_now) busy = false;
        if (ready_now) busy = true, until = cycle + run_len, runs++;
    }
};
static Kernel kernel;

static void lite_write(uint32_t addr, uint32_t data, uint32_t strb = 0xf) {
    int order = rnd() % 3;  // AW first, W first, or together
    bool aw_done = false, w_done = false;
    for (int k = 0; !(aw_done && w_done); k++) {
        top->c_s_axi_control_awvalid = !aw_done && (order != 1 || w_done || k > 3);
        top->c_s_axi_control_awaddr = addr;
        top->c_s_axi_control_wvalid = !w_done && (order != 0 || aw_done || k > 3);
        top->c_s_axi_control_wdata = data;
        top->c_s_axi_control_wstrb = strb;
        top->c_s_axi_control_bready = 0;
        top->clk = 0;
        top->eval();
        bool a = top->c_s_axi_control_awvalid && top->c_s_axi_control_awready;
        bool w = top->c_s_axi_control_wvalid && top->c_s_axi_control_wready;
        step();
        aw_done |= a, w_done |= w;
        CHECK(k < 50, "axi-lite write to %03x not accepted", addr);
        if (k >= 50) break;
    }
    top->c_s_axi_control_awvalid = 0, top->c_s_axi_control_wvalid = 0;
    for (int k = 0;; k++) {
        top->c_s_axi_control_bready = chance(50);
        top->clk = 0;
        top->eval();
        bool b = top->c_s_axi_control_bvalid && top->c_s_axi_control_bready;
        if (b) CHECK(top->c_s_axi_control_bresp == 0, "axi-lite bresp %d", top->c_s_axi_control_bresp);
        step();
        if (b) break;
        CHECK(k < 50, "axi-lite write to %03x: no response", addr);
        if (k >= 50) break;
    }
    top->c_s_axi_control_bready = 0;
}
static uint32_t lite_read(uint32_t addr) {
    for (int k = 0;; k++) {
        top->c_s_axi_control_arvalid = 1;
        top->c_s_axi_control_araddr = addr;
        top->clk = 0;
        top->eval();
        bool a = top->c_s_axi_control_arready;
        step();
        if (a) break;
        CHECK(k < 50, "axi-lite read of %03x not accepted", addr);
        if (k >= 50) break;
    }
    top->c_s_axi_control_arvalid = 0;
    uint32_t data = 0;
    for (int k = 0;; k++) {
        top->c_s_axi_control_rready = chance(50);
        top->clk = 0;
        top->eval();
        bool r = top->c_s_axi_control_rvalid && top->c_s_axi_control_rready;
        data = top->c_s_axi_control_rdata;
        if (r) CHECK(top->c_s_axi_control_rresp == 0, "axi-lite rresp %d", top->c_s_axi_control_rresp);
        step();
        if (r) break;
        CHECK(k < 50, "axi-lite read of %03x: no data", addr);
        if (k >= 50) break;
    }
    top->c_s_axi_control_rready = 0;
    return data;
}
#define EXPECT_REG(addr, value)                                                                                   \
    do {                                                                                                          \
        uint32_t v_ = lite_read(addr);                                                                            \
        CHECK(v_ == (uint32_t)(value), "reg %03x = %08x, expected %08x (line %d)", addr, v_, (uint32_t)(value), __LINE__); \
    } while (0)

static void test_lite() {
    const uint32_t IDLE = 4, DONE = 2, READY = 8, START = 1, AUTO = 0x80;
    EXPECT_REG(0x00, IDLE);
    // arguments: 3 x 64 bits
    uint64_t argv[3] = {0x0123456789abcdefull, BASE + 0x1000, 42};
    for (int k = 0; k < 3; k++) {
        lite_write(0x10 + 8 * k, (uint32_t)argv[k]);
        lite_write(0x14 + 8 * k, (uint32_t)(argv[k] >> 32));
    }
    lite_write(0x10 + 8, 0x0000ab00, 0x2);  // byte 1 of arg 1 only
    argv[1] = (argv[1] & ~0xff00ull) | 0xab00;
    for (int k = 0; k < 3; k++) {
        EXPECT_REG(0x10 + 8 * k, (uint32_t)argv[k]);
        EXPECT_REG(0x14 + 8 * k, (uint32_t)(argv[k] >> 32));
        uint64_t port = (uint64_t)top->c_args[2 * k] | ((uint64_t)top->c_args[2 * k + 1] << 32);
        CHECK(port == argv[k], "args[%d] port %016llx, expected %016llx", k, (unsigned long long)port, (unsigned long long)argv[k]);
    }
    EXPECT_REG(0x28, 0);  // past the last argument
    EXPECT_REG(0x40, 0);
    lite_write(0x28, 0xffffffff);
    EXPECT_REG(0x28, 0);

    // one run, interrupt on done
    lite_write(0x04, 1);
    lite_write(0x08, 1);
    EXPECT_REG(0x04, 1);
    EXPECT_REG(0x08, 1);
    CHECK(!top->c_ap_start && !top->c_interrupt, "ap_start/interrupt set before start");
    uint64_t runs0 = kernel.runs;
    lite_write(0x00, START);
    CHECK(kernel.runs == runs0 + 1 || top->c_ap_start, "kernel not started");
    run_until([&] { return kernel.runs == runs0 + 1; }, 100, "kernel start");
    step();
    CHECK(!top->c_ap_start, "ap_start still set after ap_ready");
    EXPECT_REG(0x00, READY);  // running: not idle, ready seen (clear on read)
    EXPECT_REG(0x00, 0);
    CHECK(!top->c_interrupt, "interrupt before done");
    run_until([&] { return !kernel.busy; }, 100, "kernel done");
    step();
    CHECK(top->c_interrupt, "no interrupt after done");
    EXPECT_REG(0x0C, 1);
    EXPECT_REG(0x00, IDLE | DONE);
    EXPECT_REG(0x00, IDLE);  // ap_done is clear-on-read
    CHECK(top->c_interrupt, "interrupt cleared by reading the control register");
    lite_write(0x0C, 1);  // toggle-on-write clears it
    EXPECT_REG(0x0C, 0);
    CHECK(!top->c_interrupt, "interrupt still set after clearing ISR");
    lite_write(0x0C, 2);  // and sets it
    EXPECT_REG(0x0C, 2);
    CHECK(top->c_interrupt, "ISR toggled to 1 but no interrupt");
    lite_write(0x04, 0);
    CHECK(!top->c_interrupt, "interrupt with GIE = 0");
    lite_write(0x0C, 2);
    lite_write(0x04, 1);

    // interrupt on ready only
    lite_write(0x08, 2);
    runs0 = kernel.runs;
    lite_write(0x00, START);
    run_until([&] { return kernel.runs == runs0 + 1; }, 100, "kernel start");
    step();
    CHECK(top->c_interrupt, "no interrupt on ap_ready");
    EXPECT_REG(0x0C, 2);
    run_until([&] { return !kernel.busy; }, 100, "kernel done");
    step();
    EXPECT_REG(0x0C, 2);  // done not enabled
    lite_write(0x0C, 2);
    CHECK(!top->c_interrupt, "interrupt after clearing");
    EXPECT_REG(0x00, IDLE | DONE | READY);  // ap_ready stays visible until read
    EXPECT_REG(0x00, IDLE);

    // auto-restart: the kernel runs again and again until auto_restart is cleared
    runs0 = kernel.runs;
    lite_write(0x00, START | AUTO);
    run_until([&] { return kernel.runs >= runs0 + 3; }, 200, "auto-restarted runs");
    CHECK(top->c_ap_start, "ap_start cleared despite auto_restart");
    uint32_t ctrl = lite_read(0x00);
    CHECK((ctrl & (START | AUTO)) == (START | AUTO), "control %02x with auto_restart", ctrl);
    lite_write(0x00, 0);  // auto_restart off; writing 0 to ap_start does not clear it
    run_until([&] { return !top->c_ap_start; }, 200, "ap_start to drop");
    uint64_t runs1 = kernel.runs;
    run_until([&] { return !kernel.busy; }, 100, "kernel done");
    for (int k = 0; k < 50; k++) step();
    CHECK(kernel.runs == runs1, "kernel restarted after auto_restart was cleared");
    EXPECT_REG(0x00, IDLE | DONE | READY);
    EXPECT_REG(0x00, IDLE);
    printf("axi_lite_ctrl: %llu kernel runs, register map, interrupts, auto-restart: ok\n", (unsigned long long)kernel.runs);
}

// ------------------------------------------------------------------------------------------------
int main(int argc, char** argv) {
    unsigned ncmds = argc > 1 ? atoi(argv[1]) : 400;
    rng_state = argc > 2 ? strtoull(argv[2], nullptr, 10) : 7;
    auto ctx = std::make_unique<VerilatedContext>();
    top = std::make_unique<Vaxi_tb_top>(ctx.get());

    ReadTest r0("read0 DW=64 MO=4 MB=256", 64, 4, 256, READ_PORTS(r0));
    ReadTest r1("read1 DW=512 MO=3 MB=8", 512, 3, 8, READ_PORTS(r1));
    WriteTest w0("write0 DW=64 MO=4 MB=256", 64, 4, 256, WRITE_PORTS(w0));
    WriteTest w1("write1 DW=512 MO=2 MB=16", 512, 2, 16, WRITE_PORTS(w1));
    agents = {&r0, &r1, &w0, &w1, &kernel};

    top->rst = 1;
    for (int k = 0; k < 5; k++) step();
    top->rst = 0;

    test_read(r0, ncmds);
    test_read(r1, ncmds);
    test_write(w0, ncmds);
    test_write(w1, ncmds);
    test_lite();

    // Zero-jitter throughput: slave always ready, first beat one cycle after the address, B one
    // cycle after the last W beat; consumer/producer always ready.
    printf("throughput read0 (DW=64, MB=256), one 20000-beat command: %.3f beats/cycle\n", read_throughput(r0, 20000, 20000));
    printf("throughput read0, 16-beat commands: %.3f beats/cycle\n", read_throughput(r0, 16, 20000));
    printf("throughput read0, 1-beat commands: %.3f beats/cycle\n", read_throughput(r0, 1, 5000));
    printf("throughput read1 (DW=512, MB=8, MO=3), one 8000-beat command: %.3f beats/cycle\n", read_throughput(r1, 8000, 8000));
    printf("throughput write0 (DW=64, MB=256), one 20000-beat command: %.3f beats/cycle\n", write_throughput(w0, 20000, 20000));
    printf("throughput write0, 16-beat commands: %.3f beats/cycle\n", write_throughput(w0, 16, 20000));
    printf("throughput write1 (DW=512, MB=16, MO=2), 2048-beat commands: %.3f beats/cycle\n", write_throughput(w1, 2048, 8192));

    printf("%llu cycles, %d errors\n", (unsigned long long)cycle, errors);
    top->final();
    top.reset();  // before the context goes away
    return errors ? 1 : 0;
}
