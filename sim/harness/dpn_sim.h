// dpnc-sim harness: drives a Verilator model of a dpnc design like a host (AXI4-Lite, ap_ctrl_hs),
// serves its AXI4 masters from a memory model, watches for deadlock and timeout, and writes the result.
// Included by the generated dpn_sim_main.cpp, which binds the model's ports (see sim/src/lib.rs).
//
// Command line (the executable is <build dir>/obj/dpn_sim):
//   dpn_sim [--arg NAME=VALUE]... [--latency N] [--jitter N] [--seed N] [--outstanding N]
//           [--bank-rates N,N,...] [--max-cycles N] [--stall-cycles N] [--poll N] [--progress N] [--out DIR] [--spec HASH]
//           [--trace FILE] [--help]
//   --arg NAME=VALUE  an argument of the kernel: for an array, a file with its initial bytes (exactly its
//                     size; arrays not given start zeroed); for a scalar, its bit pattern (decimal or 0x hex)
//   --latency N       memory latency in cycles, per request (default 64)
//   --jitter N        plus a uniform random 0..=N cycles per request (default 32)
//   --seed N          seed of the jitter (and of Verilator's random initial values) (default 1)
//   --outstanding N   requests in flight per port and direction (default 8)
//   --bank-rates L    the memory banks, each as the bytes it moves per 1000 cycles, reads and writes
//                     together (0: no limit); port k is on bank k mod their number (default empty:
//                     a bank per port, none limited)
//   --max-cycles N    give up (timeout) after N cycles counted from ap_start (default 100000000)
//   --stall-cycles N  deadlock after N cycles with no sign of life (default 100000)
//   --poll N          cycles between two reads of the control register (default 64)
//   --progress N      a line on stderr every N cycles (default 1000000; 0: none)
//   --out DIR         write DIR/result.json and DIR/NAME.bin, the final contents of every array
//   --spec HASH       refuse to run unless the harness was generated for this spec (used by dpnc-sim)
//   --trace FILE      write a waveform of every signal to FILE (only in a model built with tracing)
// Exit status: 0 done, 2 deadlock, 3 timeout, 4 protocol error (or $stop/$finish), 1 bad usage or I/O.
//
// Memory model (per m_axi port): INCR bursts only, 1..256 beats of 1..DW/8 bytes, never crossing 4 KiB,
// entirely inside one array placed on that port (its size rounded up to a whole beat). Each request (AR or
// AW) is accepted while fewer than --outstanding requests of its direction are in flight on the port (from
// AR to the last R beat, from AW to B), and draws a delay d = latency + uniform(0..=jitter) from a PRNG
// seeded with --seed. A read's data starts d cycles after its AR; reads are answered in order, one beat per
// cycle, from memory as it is when the burst's first beat is presented. W beats are taken one per cycle
// once their AW has been accepted; the response comes d cycles after the last W beat, in order, and the
// write lands in memory (strobes honoured) when its response is presented. Reads and writes are not
// ordered with each other: a design must wait for B before reading what it wrote. Checked: valid dropped or
// payload changed before ready, wlast on the wrong beat, strobes outside the beat's lanes, unsupported burst
// type or size, addresses outside the port's arrays, and writes still unacknowledged when ap_done is seen.
// Bandwidth (--bank-rates): each bank earns its rate every cycle (up to one rate's worth banked) and every R or
// W beat of its ports spends the beat's bytes; a port offers R data or takes W data only while its bank is not
// in debt, so the ports of one bank share its bandwidth and a design cannot beat the bank's peak.
#pragma once
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <sstream>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

namespace dpn_sim {

struct ArgDesc {
    const char* name;
    bool array;
    unsigned port;    // arrays: index of the m_axi port
    uint64_t bytes;   // arrays: size
    bool output;      // arrays: an output of the kernel
    unsigned bits;    // scalars: width of the bit pattern
    uint64_t base;    // arrays: byte address
    uint64_t span;    // arrays: accessible bytes from base (size rounded up to a beat)
};

// Pointers to the ports of the Verilated model (bound by the generated main). Data and strobe ports of
// any width are seen as little-endian bytes.
struct AxiPins {
    uint8_t *awvalid, *awready;
    uint64_t* awaddr;
    uint8_t *awlen, *awsize, *awburst;
    uint8_t *wvalid, *wready;
    uint8_t *wdata, *wstrb;
    uint8_t* wlast;
    uint8_t *bvalid, *bready, *bresp;
    uint8_t *arvalid, *arready;
    uint64_t* araddr;
    uint8_t *arlen, *arsize, *arburst;
    uint8_t *rvalid, *rready;
    uint8_t* rdata;
    uint8_t *rlast, *rresp;
};

struct LitePins {
    uint8_t *awvalid, *awready;
    uint16_t* awaddr;
    uint8_t *wvalid, *wready;
    uint32_t* wdata;
    uint8_t* wstrb;
    uint8_t *bvalid, *bready, *bresp;
    uint8_t *arvalid, *arready;
    uint16_t* araddr;
    uint8_t *rvalid, *rready;
    uint32_t* rdata;
    uint8_t* rresp;
};

struct Design {
    const char* top = "";
    const char* spec_hash = "";
    unsigned data_bits = 64;
    std::vector<ArgDesc> args;
    std::vector<std::string> ports, channels, processes;
    uint8_t *clk = nullptr, *rst_n = nullptr, *interrupt = nullptr;
    LitePins ctrl{};
    std::vector<AxiPins> axi;
    const uint32_t* dbg_ops = nullptr;
    const uint8_t *dbg_full = nullptr, *dbg_empty = nullptr, *dbg_done = nullptr, *dbg_peak = nullptr;
    // per process, one bit each: it did its work, waited for inputs, waited for room this cycle
    const uint8_t *dbg_work = nullptr, *dbg_wait_in = nullptr, *dbg_wait_out = nullptr;
    std::function<void()> eval;
    std::function<bool()> got_finish;
};

template <typename T> inline uint8_t* bytes_of(T& port) { return reinterpret_cast<uint8_t*>(&port); }

// `interrupt` is a reserved word for Verilator, which may name the port __SYM__interrupt in C++.
template <typename T, typename = void> struct Interrupt {
    static uint8_t* pin(T* t) { return &t->__SYM__interrupt; }
};
template <typename T> struct Interrupt<T, std::void_t<decltype(std::declval<T&>().interrupt)>> {
    static uint8_t* pin(T* t) { return &t->interrupt; }
};

struct Options {
    uint64_t latency = 64, jitter = 32, seed = 1, outstanding = 8;
    std::vector<uint64_t> bank_rates;
    uint64_t max_cycles = 100000000, stall_cycles = 100000, poll = 64, progress = 1000000;
    std::string out_dir, spec_hash;
    std::vector<std::pair<std::string, std::string>> args;
};

// Thrown on a protocol violation; caught by run().
struct Violation {
    std::string what;
};

static inline std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
static inline std::string fmt(const char* f, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

static inline bool bit_of(const uint8_t* p, size_t k) { return (p[k / 8] >> (k % 8)) & 1; }

struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
    uint64_t next() {  // splitmix64
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    uint64_t upto(uint64_t n) { return n == 0 ? 0 : next() % (n + 1); }  // uniform 0..=n
};

// The DDR: every array in its own region.
struct Region {
    const ArgDesc* arg;
    std::vector<uint8_t> mem;
};

struct Burst {
    uint64_t addr;
    uint32_t beats, size;  // size: log2 of the bytes per beat
    uint64_t ready;        // cycle from which its data (reads) or response (writes) may be presented
    uint64_t delay = 0;    // writes: from the last W beat to the response
    uint32_t done = 0;  // beats transferred
    bool started = false;
    std::vector<uint8_t> data;  // reads: snapshot of [addr, end); writes: bytes written
    std::vector<uint8_t> mask;  // writes: which bytes of data are strobed
    Region* region = nullptr;
    Burst(uint64_t a, uint32_t n, uint32_t sz, uint64_t r) : addr(a), beats(n), size(sz), ready(r) {}
};

// One memory bank's bandwidth, shared by its ports: a budget in thousandths of a byte.
struct Bank {
    int64_t rate = 0;    // earned per cycle (0: no limit)
    int64_t budget = 0;  // may go negative: beats of several ports in one cycle borrow
    void tick() {
        if (rate) budget = std::min(budget + rate, rate);
    }
    bool open() const { return rate == 0 || budget > 0; }
    void spend(uint64_t bytes) {
        if (rate) budget -= int64_t(bytes) * 1000;
    }
};

struct Port {
    std::string name;
    unsigned index;
    AxiPins pin;
    unsigned bus_bytes;
    uint64_t max_out, latency, jitter;
    Rng rng;
    std::deque<Burst> rq, wq;
    size_t w_next = 0;  // index in wq of the burst receiving W beats
    uint64_t bytes_read = 0, bytes_written = 0, read_bursts = 0, write_bursts = 0;
    uint64_t bytes_reread = 0;               // read bytes of beats that an earlier beat of their size had read
    std::unordered_set<uint64_t> beats_read;  // (aligned address, size) of the beats read so far
    // handshakes or pending valids of the previous cycle, for the stability checks
    bool ar_wait = false, aw_wait = false, w_wait = false;
    uint64_t ar_prev[4], aw_prev[4];
    std::vector<uint8_t> w_prev, w_cur;
    std::vector<Region>* regions;
    Bank* bank;

    Port(const std::string& n, unsigned i, const AxiPins& p, unsigned bb, const Options& o, std::vector<Region>* r, Bank* bk)
        : name(n), index(i), pin(p), bus_bytes(bb), max_out(o.outstanding), latency(o.latency), jitter(o.jitter),
          rng(o.seed * 1000003ull + i), regions(r), bank(bk) {}

    uint64_t beat_addr(const Burst& b, uint32_t i) const {
        uint64_t nb = 1ull << b.size;
        return i == 0 ? b.addr : (b.addr & ~(nb - 1)) + uint64_t(i) * nb;
    }
    uint64_t end_addr(const Burst& b) const { return (b.addr & ~((1ull << b.size) - 1)) + (uint64_t(b.beats) << b.size); }

    Region* check_burst(const char* ch, uint64_t addr, unsigned len, unsigned size, unsigned burst) {
        if (burst != 1) throw Violation{fmt("%s: %s burst type %u (only INCR, 1, is supported)", name.c_str(), ch, burst)};
        if ((1u << size) > bus_bytes)
            throw Violation{fmt("%s: %s size %u (%u bytes) wider than the %u-byte bus", name.c_str(), ch, size, 1u << size, bus_bytes)};
        Burst b{addr, len + 1, size, 0};
        uint64_t end = end_addr(b);
        if ((addr >> 12) != ((end - 1) >> 12))
            throw Violation{fmt("%s: %s burst at 0x%" PRIx64 " of %u beats crosses a 4 KiB boundary", name.c_str(), ch, addr, len + 1)};
        for (Region& r : *regions) {
            if (addr >= r.arg->base && end <= r.arg->base + r.arg->span) {
                if (r.arg->port != index)
                    throw Violation{fmt("%s: %s burst at 0x%" PRIx64 " hits array %s, which is on another port", name.c_str(), ch,
                                        addr, r.arg->name)};
                return &r;
            }
        }
        std::string near;
        for (Region& r : *regions)
            if (r.arg->port == index) near += fmt(" %s [0x%" PRIx64 ", 0x%" PRIx64 ")", r.arg->name, r.arg->base, r.arg->base + r.arg->span);
        throw Violation{fmt("%s: %s burst [0x%" PRIx64 ", 0x%" PRIx64 ") (%u beats of %u bytes) is outside the arrays of the port:%s",
                            name.c_str(), ch, addr, end, len + 1, 1u << size, near.empty() ? " none" : near.c_str())};
    }

    // Drive the slave's outputs from its state (never combinationally from the master's outputs).
    void drive(uint64_t cyc) {
        *pin.awready = wq.size() < max_out;
        *pin.arready = rq.size() < max_out;
        *pin.wready = w_next < wq.size() && bank->open();
        *pin.bresp = 0;
        *pin.rresp = 0;
        bool bv = !wq.empty() && wq.front().done == wq.front().beats && cyc >= wq.front().ready;
        if (bv && !wq.front().started) {  // the write lands
            Burst& b = wq.front();
            b.started = true;
            for (size_t i = 0; i < b.data.size(); i++)
                if (b.mask[i]) {
                    b.region->mem[b.addr - b.region->arg->base + i] = b.data[i];
                    bytes_written++;
                }
        }
        *pin.bvalid = bv;
        bool rv = !rq.empty() && cyc >= rq.front().ready && bank->open();
        *pin.rvalid = rv;
        std::memset(pin.rdata, 0, bus_bytes);
        *pin.rlast = 0;
        if (rv) {
            Burst& b = rq.front();
            if (!b.started) {  // data phase starts: snapshot
                b.started = true;
                b.data.assign(b.region->mem.begin() + (b.addr - b.region->arg->base),
                              b.region->mem.begin() + (end_addr(b) - b.region->arg->base));
            }
            uint64_t a = beat_addr(b, b.done), hi = (a & ~((1ull << b.size) - 1)) + (1ull << b.size);
            for (uint64_t x = a; x < hi; x++) pin.rdata[x % bus_bytes] = b.data[x - b.addr];
            *pin.rlast = b.done + 1 == b.beats;
        }
    }

    // See the master's settled outputs before the clock edge; returns whether any handshake happened.
    bool observe(uint64_t cyc) {
        bool life = false;
        // AR
        uint64_t ar[4] = {*pin.araddr, *pin.arlen, *pin.arsize, *pin.arburst};
        if (ar_wait) {
            if (!*pin.arvalid) throw Violation{fmt("%s: arvalid dropped before arready", name.c_str())};
            if (std::memcmp(ar, ar_prev, sizeof ar))
                throw Violation{fmt("%s: AR payload changed while arvalid waited for arready", name.c_str())};
        }
        ar_wait = *pin.arvalid && !*pin.arready;
        std::memcpy(ar_prev, ar, sizeof ar);
        if (*pin.arvalid && *pin.arready) {
            Region* r = check_burst("read", ar[0], ar[1], ar[2], ar[3]);
            Burst b{ar[0], uint32_t(ar[1]) + 1, uint32_t(ar[2]), cyc + 1 + latency + rng.upto(jitter)};
            b.region = r;
            rq.push_back(b);
            read_bursts++;
            life = true;
        }
        // AW
        uint64_t aw[4] = {*pin.awaddr, *pin.awlen, *pin.awsize, *pin.awburst};
        if (aw_wait) {
            if (!*pin.awvalid) throw Violation{fmt("%s: awvalid dropped before awready", name.c_str())};
            if (std::memcmp(aw, aw_prev, sizeof aw))
                throw Violation{fmt("%s: AW payload changed while awvalid waited for awready", name.c_str())};
        }
        aw_wait = *pin.awvalid && !*pin.awready;
        std::memcpy(aw_prev, aw, sizeof aw);
        // W (before AW's handshake is recorded: wready was driven from the state before this cycle)
        if (w_wait || (*pin.wvalid && !*pin.wready)) {  // only then is the payload needed
            unsigned sb = (bus_bytes + 7) / 8;
            w_cur.assign(pin.wdata, pin.wdata + bus_bytes);
            w_cur.insert(w_cur.end(), pin.wstrb, pin.wstrb + sb);
            w_cur.push_back(*pin.wlast);
        }
        if (w_wait) {
            if (!*pin.wvalid) throw Violation{fmt("%s: wvalid dropped before wready", name.c_str())};
            if (w_cur != w_prev) throw Violation{fmt("%s: W payload changed while wvalid waited for wready", name.c_str())};
        }
        w_wait = *pin.wvalid && !*pin.wready;
        if (w_wait) w_prev.swap(w_cur);
        if (*pin.wvalid && *pin.wready) {
            Burst& b = wq[w_next];
            bool last = b.done + 1 == b.beats;
            if (bool(*pin.wlast) != last)
                throw Violation{fmt("%s: wlast %s on beat %u of a %u-beat write burst at 0x%" PRIx64, name.c_str(),
                                    *pin.wlast ? "set" : "not set", b.done + 1, b.beats, b.addr)};
            uint64_t a = beat_addr(b, b.done), lo = a % bus_bytes, hi = ((a & ~((1ull << b.size) - 1)) + (1ull << b.size));
            uint64_t lanes_hi = lo + (hi - a);
            for (unsigned lane = 0; lane < bus_bytes; lane++) {
                if (!bit_of(pin.wstrb, lane)) continue;
                if (lane < lo || lane >= lanes_hi)
                    throw Violation{fmt("%s: wstrb lane %u set outside the bytes of beat %u (address 0x%" PRIx64 ", %u bytes)",
                                        name.c_str(), lane, b.done + 1, a, 1u << b.size)};
                uint64_t off = a + (lane - lo) - b.addr;
                b.data[off] = pin.wdata[lane];
                b.mask[off] = 1;
            }
            bank->spend(1ull << b.size);
            if (++b.done == b.beats) {
                b.ready = cyc + 1 + b.delay;
                w_next++;
            }
            life = true;
        }
        if (*pin.awvalid && *pin.awready) {
            Region* r = check_burst("write", aw[0], aw[1], aw[2], aw[3]);
            Burst b{aw[0], uint32_t(aw[1]) + 1, uint32_t(aw[2]), UINT64_MAX};
            b.delay = latency + rng.upto(jitter);
            b.region = r;
            b.data.assign(end_addr(b) - b.addr, 0);
            b.mask.assign(end_addr(b) - b.addr, 0);
            wq.push_back(b);
            write_bursts++;
            life = true;
        }
        // B
        if (*pin.bvalid && *pin.bready) {
            wq.pop_front();
            w_next--;
            life = true;
        }
        // R: a kernel issues a read only with room for its beats, so that one port's slow
        // consumer cannot hold back the bank's responses to the others.
        if (*pin.rvalid && !*pin.rready)
            throw Violation{fmt("%s: rready low while rvalid: the kernel holds back read data", name.c_str())};
        if (*pin.rvalid && *pin.rready) {
            Burst& b = rq.front();
            uint64_t a = beat_addr(b, b.done);
            uint64_t n = ((a & ~((1ull << b.size) - 1)) + (1ull << b.size)) - a;
            bytes_read += n;
            if (!beats_read.insert(((a >> b.size) << 3) | b.size).second) bytes_reread += n;
            bank->spend(1ull << b.size);
            if (++b.done == b.beats) rq.pop_front();
            life = true;
        }
        return life;
    }

    // Requests still waiting out their latency: the memory is busy, not stuck.
    bool busy(uint64_t cyc) const {
        for (const Burst& b : rq)
            if (b.ready > cyc) return true;
        for (const Burst& b : wq)
            if (b.done == b.beats && b.ready > cyc) return true;
        return false;
    }

    std::string state(uint64_t cyc) const {
        std::string s = fmt("%s: %zu read and %zu write bursts in flight", name.c_str(), rq.size(), wq.size());
        if (!rq.empty() && rq.front().ready <= cyc) s += ", read data waiting for rready";
        if (!wq.empty() && wq.front().done == wq.front().beats && wq.front().ready <= cyc) s += ", write response waiting for bready";
        if (w_next < wq.size()) s += fmt(", waiting for W beats (%u of %u received)", wq[w_next].done, wq[w_next].beats);
        if (ar_wait) s += ", arvalid waiting";
        if (aw_wait) s += ", awvalid waiting";
        if (w_wait) s += ", wvalid waiting";
        return s;
    }
};

// The host's AXI4-Lite driver: one access at a time.
struct Host {
    LitePins p{};
    bool busy = false, write = false, aw_done = false, w_done = false, ar_done = false;
    uint16_t addr = 0;
    uint32_t data = 0;
    uint64_t since = 0;
    std::function<void(uint32_t)> then;

    void start_write(uint16_t a, uint32_t d, uint64_t cyc, std::function<void(uint32_t)> f = nullptr) {
        busy = true, write = true, aw_done = w_done = false, addr = a, data = d, since = cyc, then = f;
    }
    void start_read(uint16_t a, uint64_t cyc, std::function<void(uint32_t)> f) {
        busy = true, write = false, ar_done = false, addr = a, since = cyc, then = f;
    }
    void drive() {
        *p.awvalid = busy && write && !aw_done;
        *p.awaddr = addr;
        *p.wvalid = busy && write && !w_done;
        *p.wdata = write ? data : 0;
        *p.wstrb = 0xF;
        *p.bready = 1;
        *p.arvalid = busy && !write && !ar_done;
        *p.araddr = addr;
        *p.rready = 1;
    }
    void observe(uint64_t cyc) {
        if (busy && cyc - since > 1000)
            throw Violation{fmt("s_axi_control: no response to the %s of 0x%03x in 1000 cycles", write ? "write" : "read", addr)};
        if (*p.bvalid && *p.bready) {
            if (!busy || !write || !aw_done || !w_done)
                throw Violation{fmt("s_axi_control: write response without a completed write (0x%03x)", addr)};
            if (*p.bresp != 0) throw Violation{fmt("s_axi_control: bresp %u for the write of 0x%03x", *p.bresp, addr)};
            finish(0);
        } else if (*p.rvalid && *p.rready) {
            if (!busy || write || !ar_done) throw Violation{fmt("s_axi_control: read data without a read")};
            if (*p.rresp != 0) throw Violation{fmt("s_axi_control: rresp %u for the read of 0x%03x", *p.rresp, addr)};
            finish(*p.rdata);
        }
        if (busy && write && *p.awvalid && *p.awready) aw_done = true;
        if (busy && write && *p.wvalid && *p.wready) w_done = true;
        if (busy && !write && *p.arvalid && *p.arready) ar_done = true;
    }
    void finish(uint32_t v) {
        busy = false;
        auto f = then;
        then = nullptr;
        if (f) f(v);
    }
};

static inline std::string json_str(const std::string& s) {
    std::string o = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') o += '\\', o += char(c);
        else if (c == '\n') o += "\\n";
        else if (c < 0x20) o += fmt("\\u%04x", c);
        else o += char(c);
    }
    return o + "\"";
}

static inline bool parse_u64(const std::string& s, uint64_t& v) {
    if (s.empty()) return false;
    char* end = nullptr;
    errno = 0;
    v = std::strtoull(s.c_str(), &end, 0);
    return errno == 0 && *end == 0 && s[0] != '-';
}

static inline void usage(FILE* f) {
    std::fprintf(f,
                 "usage: dpn_sim [--arg NAME=VALUE]... [--latency N] [--jitter N] [--seed N] [--outstanding N]\n"
                 "               [--bank-rates N,N,...] [--max-cycles N] [--stall-cycles N] [--poll N] [--progress N] [--out DIR] [--spec HASH]\n"
                 "               [--trace FILE]\n"
                 "  arrays: --arg NAME=FILE (initial bytes; zeroed when not given); scalars: --arg NAME=BITS\n");
}

static inline uint64_t seed_from_args(int argc, char** argv) {
    for (int i = 1; i + 1 < argc; i++)
        if (std::string(argv[i]) == "--seed") return std::strtoull(argv[i + 1], nullptr, 0);
    return 1;
}

// The waveform file of --trace (read by the generated main, which opens it), or null.
static inline const char* trace_from_args(int argc, char** argv) {
    for (int i = 1; i + 1 < argc; i++)
        if (std::string(argv[i]) == "--trace") return argv[i + 1];
    return nullptr;
}

static inline bool parse_options(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            usage(stdout);
            std::exit(0);
        }
        if (a.rfind("+verilator+", 0) == 0) continue;
        if (i + 1 >= argc) {
            std::fprintf(stderr, "dpn_sim: %s needs a value\n", a.c_str());
            return false;
        }
        std::string v = argv[++i];
        uint64_t* n = a == "--latency" ? &o.latency
                      : a == "--jitter" ? &o.jitter
                      : a == "--seed" ? &o.seed
                      : a == "--outstanding" ? &o.outstanding
                      : a == "--max-cycles" ? &o.max_cycles
                      : a == "--stall-cycles" ? &o.stall_cycles
                      : a == "--poll" ? &o.poll
                      : a == "--progress" ? &o.progress
                                          : nullptr;
        if (n) {
            if (!parse_u64(v, *n)) {
                std::fprintf(stderr, "dpn_sim: %s: not a number: %s\n", a.c_str(), v.c_str());
                return false;
            }
        } else if (a == "--bank-rates") {
            o.bank_rates.clear();
            for (size_t at = 0; at < v.size();) {
                size_t comma = std::min(v.find(',', at), v.size());
                uint64_t r;
                if (!parse_u64(v.substr(at, comma - at), r)) {
                    std::fprintf(stderr, "dpn_sim: --bank-rates: not a list of numbers: %s\n", v.c_str());
                    return false;
                }
                o.bank_rates.push_back(r);
                at = comma + 1;
            }
        } else if (a == "--out") {
            o.out_dir = v;
        } else if (a == "--spec") {
            o.spec_hash = v;
        } else if (a == "--trace") {
            // opened by the generated main
        } else if (a == "--arg") {
            size_t eq = v.find('=');
            if (eq == std::string::npos) {
                std::fprintf(stderr, "dpn_sim: --arg wants NAME=VALUE, got %s\n", v.c_str());
                return false;
            }
            o.args.push_back({v.substr(0, eq), v.substr(eq + 1)});
        } else {
            std::fprintf(stderr, "dpn_sim: unknown option %s\n", a.c_str());
            usage(stderr);
            return false;
        }
    }
    if (o.outstanding == 0) o.outstanding = 1;
    if (o.poll == 0) o.poll = 1;
    return true;
}

static inline std::string file_name(const std::string& n) {
    std::string s;
    for (char c : n) s += (isalnum((unsigned char)c) || c == '_' || c == '-') ? c : '_';
    return s + ".bin";
}

inline int run(Design& d, int argc, char** argv) {
    Options o;
    if (!parse_options(argc, argv, o)) return 1;
    if (!o.spec_hash.empty() && o.spec_hash != d.spec_hash) {
        std::fprintf(stderr, "dpn_sim: this harness was generated for spec %s, not %s: rebuild it\n", d.spec_hash, o.spec_hash.c_str());
        return 1;
    }
    const unsigned bus_bytes = d.data_bits / 8;

    // ---- memory and arguments
    std::vector<Region> regions;
    regions.reserve(d.args.size());
    std::vector<uint64_t> arg_value(d.args.size(), 0);
    std::vector<bool> given(d.args.size(), false);
    for (size_t k = 0; k < d.args.size(); k++) {
        const ArgDesc& a = d.args[k];
        if (a.array) {
            regions.push_back(Region{&a, std::vector<uint8_t>(a.span, 0)});
            arg_value[k] = a.base;
        }
    }
    for (auto& kv : o.args) {
        size_t k = 0, r = 0;
        while (k < d.args.size() && kv.first != d.args[k].name) r += d.args[k].array, k++;
        if (k == d.args.size()) {
            std::fprintf(stderr, "dpn_sim: no argument named %s\n", kv.first.c_str());
            return 1;
        }
        given[k] = true;
        const ArgDesc& a = d.args[k];
        if (a.array) {
            FILE* f = std::fopen(kv.second.c_str(), "rb");
            if (!f) {
                std::fprintf(stderr, "dpn_sim: cannot open %s: %s\n", kv.second.c_str(), strerror(errno));
                return 1;
            }
            std::vector<uint8_t>& m = regions[r].mem;
            size_t got = std::fread(m.data(), 1, a.bytes, f);
            bool extra = std::fgetc(f) != EOF;
            std::fclose(f);
            if (got != a.bytes || extra) {
                std::fprintf(stderr, "dpn_sim: %s: %s must hold exactly %" PRIu64 " bytes\n", a.name, kv.second.c_str(), a.bytes);
                return 1;
            }
        } else {
            uint64_t v;
            if (!parse_u64(kv.second, v) || (a.bits < 64 && (v >> a.bits) != 0)) {
                std::fprintf(stderr, "dpn_sim: %s: %s is not a %u-bit pattern\n", a.name, kv.second.c_str(), a.bits);
                return 1;
            }
            arg_value[k] = v;
        }
    }
    for (size_t k = 0; k < d.args.size(); k++)
        if (!d.args[k].array && !given[k]) std::fprintf(stderr, "dpn_sim: warning: scalar %s not given, passing 0\n", d.args[k].name);

    std::vector<Bank> banks(o.bank_rates.empty() ? std::max<size_t>(d.ports.size(), 1) : o.bank_rates.size());
    for (size_t k = 0; k < o.bank_rates.size(); k++) banks[k].rate = banks[k].budget = int64_t(o.bank_rates[k]);
    std::vector<Port> ports;
    ports.reserve(d.ports.size());
    for (size_t i = 0; i < d.ports.size(); i++)
        ports.emplace_back(d.ports[i], unsigned(i), d.axi[i], bus_bytes, o, &regions, &banks[i % banks.size()]);

    Host host;
    host.p = d.ctrl;
    const size_t nc = d.channels.size(), np = d.processes.size();
    std::vector<uint64_t> full_cycles;  // per channel: cycles it could take no value (its producer would stall)
    std::vector<uint64_t> work_cycles, wait_in_cycles, wait_out_cycles;  // per process (dbg_work, …)
    std::vector<uint64_t> done_cycles(np, 0);  // per process: the counted cycle in which its dbg_done first rose
    uint64_t counted = 0;

    // ---- the clock
    uint64_t cyc = 0;
    // What each channel and process does in the cycle that ends at the coming edge, once the
    // run has started: sampled after the inputs for that edge are driven.
    bool counting = false;
    full_cycles.assign(nc, 0);
    if (d.dbg_work && d.dbg_wait_in && d.dbg_wait_out) work_cycles.assign(np, 0), wait_in_cycles.assign(np, 0), wait_out_cycles.assign(np, 0);
    auto count = [&] {
        for (size_t k = 0; k < full_cycles.size(); k++) full_cycles[k] += bit_of(d.dbg_full, k);
        for (size_t k = 0; k < work_cycles.size(); k++) {
            work_cycles[k] += bit_of(d.dbg_work, k);
            wait_in_cycles[k] += bit_of(d.dbg_wait_in, k);
            wait_out_cycles[k] += bit_of(d.dbg_wait_out, k);
        }
        counted++;
        for (size_t k = 0; k < np; k++)
            if (!done_cycles[k] && bit_of(d.dbg_done, k)) done_cycles[k] = counted;
    };
    auto step = [&](bool check) -> bool {  // one cycle; returns whether anything moved on the m_axi side
        for (Bank& b : banks) b.tick();
        host.drive();
        for (Port& p : ports) p.drive(cyc);
        *d.clk = 0;
        d.eval();
        if (counting) count();
        bool life = false;
        if (check) {
            host.observe(cyc);
            for (Port& p : ports) life |= p.observe(cyc);
        }
        *d.clk = 1;
        d.eval();
        cyc++;
        return life;
    };

    std::string status = "done", message, report;
    uint64_t t0 = 0, t_done = 0, t_irq = 0;
    bool started = false, done = false, irq = false;
    try {
        // reset
        *d.rst_n = 0;
        for (int i = 0; i < 16; i++) step(false);
        *d.rst_n = 1;
        for (int i = 0; i < 4; i++) step(true);
        // the host's sequence: arguments, read back, interrupts, start
        std::deque<std::function<void()>> seq;
        for (size_t k = 0; k < d.args.size(); k++) {
            uint16_t a = uint16_t(0x10 + 8 * k);
            uint64_t v = arg_value[k];
            seq.push_back([&host, &cyc, a, v] { host.start_write(a, uint32_t(v), cyc); });
            seq.push_back([&host, &cyc, a, v] { host.start_write(a + 4, uint32_t(v >> 32), cyc); });
        }
        for (size_t k = 0; k < d.args.size(); k++) {
            uint16_t a = uint16_t(0x10 + 8 * k);
            uint64_t v = arg_value[k];
            const char* n = d.args[k].name;
            for (int h = 0; h < 2; h++) {
                uint32_t want = uint32_t(v >> (32 * h));
                uint16_t ah = a + 4 * h;
                seq.push_back([&host, &cyc, ah, want, n] {
                    host.start_read(ah, cyc, [ah, want, n](uint32_t got) {
                        if (got != want)
                            throw Violation{fmt("s_axi_control: argument %s reads back 0x%08x at 0x%03x, 0x%08x was written", n, got, ah, want)};
                    });
                });
            }
        }
        seq.push_back([&] { host.start_write(0x04, 1, cyc); });  // GIE
        seq.push_back([&] { host.start_write(0x08, 1, cyc); });  // IER: ap_done
        seq.push_back([&] {
            host.start_write(0x00, 1, cyc, [&](uint32_t) {
                started = true;
                counting = true;
                t0 = cyc;
            });
        });
        while (!seq.empty() || host.busy) {
            if (!host.busy) {
                auto f = seq.front();
                seq.pop_front();
                f();
            }
            step(true);
            if (d.got_finish()) throw Violation{fmt("the design called $stop or $finish at cycle %" PRIu64 " (during setup)", cyc)};
        }

        // run until ap_done is seen
        uint32_t last_ops = d.dbg_ops ? *d.dbg_ops : 0;
        uint64_t last_life = cyc, next_poll = cyc + o.poll, next_progress = o.progress;  // relative to t0
        while (!done) {
            if (!host.busy && cyc >= next_poll) {
                host.start_read(0x00, cyc, [&](uint32_t v) {
                    if (v & 2) {
                        done = true;
                        t_done = cyc;
                    }
                    next_poll = cyc + o.poll;
                });
            }
            bool life = step(true);
            if (d.got_finish()) throw Violation{fmt("the design called $stop or $finish at cycle %" PRIu64, cyc - t0)};
            if (!irq && *d.interrupt) irq = true, t_irq = cyc;
            uint32_t ops = d.dbg_ops ? *d.dbg_ops : 0;
            if (ops != last_ops) life = true, last_ops = ops;
            // A process whose only inputs are its own results (a ring inside it) moves no channel.
            for (size_t k = 0; d.dbg_work && !life && k < np; k++) life = bit_of(d.dbg_work, k);
            for (Port& p : ports) life |= p.busy(cyc);
            if (life) last_life = cyc;
            if (done) break;
            if (cyc - t0 >= o.max_cycles) {
                status = "timeout";
                message = fmt("no ap_done after %" PRIu64 " cycles", cyc - t0);
                break;
            }
            if (cyc - last_life >= o.stall_cycles) {
                status = "deadlock";
                std::ostringstream r;
                r << "no progress for " << (cyc - last_life) << " cycles (dbg_ops stuck at " << ops << ", no AXI transfer)\n";
                std::string nd, full, empty;
                size_t ndone = 0;
                for (size_t k = 0; k < np; k++) {
                    if (bit_of(d.dbg_done, k)) ndone++;
                    else nd += (nd.empty() ? "" : ", ") + d.processes[k];
                }
                for (size_t k = 0; k < nc; k++) {
                    if (bit_of(d.dbg_full, k)) full += (full.empty() ? "" : ", ") + d.channels[k];
                    if (bit_of(d.dbg_empty, k)) empty += (empty.empty() ? "" : ", ") + d.channels[k];
                }
                if (np && ndone == np) r << "every process reports done, but ap_done was not seen\n";
                else r << "processes not done: " << (nd.empty() ? "(none)" : nd) << "\n";
                r << "channels full: " << (full.empty() ? "(none)" : full) << "\n";
                r << "channels empty: " << (empty.empty() ? "(none)" : empty) << "\n";
                for (Port& p : ports) r << "memory " << p.state(cyc) << "\n";
                report = r.str();
                break;
            }
            if (o.progress && cyc - t0 >= next_progress) {
                next_progress += o.progress;
                uint64_t rd = 0, wr = 0;
                size_t ndone = 0;
                for (Port& p : ports) rd += p.bytes_read, wr += p.bytes_written;
                for (size_t k = 0; k < np; k++) ndone += bit_of(d.dbg_done, k);
                std::fprintf(stderr, "dpn_sim: cycle %" PRIu64 ": %" PRIu32 " channel ops, %" PRIu64 " B read, %" PRIu64 " B written, %zu/%zu processes done\n",
                             cyc - t0, ops, rd, wr, ndone, np);
                std::fflush(stderr);
            }
        }
        if (done) {
            for (Port& p : ports)
                if (!p.wq.empty())
                    throw Violation{fmt("ap_done was seen while %s has %zu write bursts not acknowledged (B)", p.name.c_str(), p.wq.size())};
        }
    } catch (const Violation& v) {
        status = "protocol";
        message = v.what;
    }
    uint64_t cycles = done ? ((irq && t_irq <= t_done ? t_irq : t_done) - t0) : (started ? cyc - t0 : 0);

    // ---- results
    uint64_t rd = 0, wr = 0;
    for (Port& p : ports) rd += p.bytes_read, wr += p.bytes_written;
    std::vector<uint32_t> peaks(nc, 0);
    for (size_t k = 0; k < nc; k++) std::memcpy(&peaks[k], d.dbg_peak + 4 * k, 4);
    std::string js = "{\n";
    js += "  \"status\": " + json_str(status) + ",\n";
    js += fmt("  \"cycles\": %" PRIu64 ",\n  \"cycles_polled\": %" PRIu64 ",\n  \"interrupt\": %s,\n", cycles, done ? t_done - t0 : 0,
              irq ? "true" : "false");
    js += fmt("  \"bytes_read\": %" PRIu64 ",\n  \"bytes_written\": %" PRIu64 ",\n", rd, wr);
    js += "  \"ports\": [";
    for (size_t i = 0; i < ports.size(); i++)
        js += fmt("%s{\"name\": %s, \"bytes_read\": %" PRIu64 ", \"bytes_reread\": %" PRIu64 ", \"bytes_written\": %" PRIu64
                  ", \"read_bursts\": %" PRIu64 ", \"write_bursts\": %" PRIu64 "}",
                  i ? ", " : "", json_str(ports[i].name).c_str(), ports[i].bytes_read, ports[i].bytes_reread, ports[i].bytes_written,
                  ports[i].read_bursts, ports[i].write_bursts);
    js += "],\n  \"peaks\": [";
    for (size_t k = 0; k < nc; k++) js += fmt("%s%" PRIu32, k ? ", " : "", peaks[k]);
    js += "],\n  \"full_cycles\": [";
    for (size_t k = 0; k < full_cycles.size(); k++) js += fmt("%s%" PRIu64, k ? ", " : "", full_cycles[k]);
    for (auto [key, counts] : {std::pair{"work_cycles", &work_cycles}, {"wait_in_cycles", &wait_in_cycles}, {"wait_out_cycles", &wait_out_cycles}, {"done_cycles", &done_cycles}}) {
        js += fmt("],\n  \"%s\": [", key);
        for (size_t k = 0; k < counts->size(); k++) js += fmt("%s%" PRIu64, k ? ", " : "", (*counts)[k]);
    }
    js += "],\n  \"arrays\": [";
    size_t r = 0;
    bool io_ok = true;
    for (size_t k = 0; k < d.args.size(); k++) {
        if (!d.args[k].array) continue;
        std::string f = file_name(d.args[k].name);
        js += fmt("%s{\"name\": %s, \"file\": %s}", r ? ", " : "", json_str(d.args[k].name).c_str(), json_str(f).c_str());
        if (!o.out_dir.empty()) {
            std::string path = o.out_dir + "/" + f;
            FILE* fp = std::fopen(path.c_str(), "wb");
            if (!fp || std::fwrite(regions[r].mem.data(), 1, d.args[k].bytes, fp) != d.args[k].bytes) io_ok = false;
            if (fp) std::fclose(fp);
        }
        r++;
    }
    js += "],\n  \"message\": " + json_str(message) + ",\n  \"report\": " + json_str(report) + "\n}\n";
    if (!o.out_dir.empty()) {
        std::string path = o.out_dir + "/result.json";
        FILE* fp = std::fopen(path.c_str(), "w");
        if (!fp || std::fputs(js.c_str(), fp) < 0) io_ok = false;
        if (fp) std::fclose(fp);
        if (!io_ok) {
            std::fprintf(stderr, "dpn_sim: cannot write the results in %s\n", o.out_dir.c_str());
            return 1;
        }
    }
    if (o.out_dir.empty()) {
        std::printf("%s", js.c_str());
        std::fflush(stdout);
    }
    std::fprintf(stderr, "dpn_sim: %s after %" PRIu64 " cycles%s%s\n", status.c_str(), cycles, message.empty() ? "" : ": ", message.c_str());
    return status == "done" ? 0 : status == "deadlock" ? 2 : status == "timeout" ? 3 : 4;
}

}  // namespace dpn_sim
