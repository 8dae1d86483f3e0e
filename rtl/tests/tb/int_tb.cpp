// Testbench for int_tb_top: dpn_imul and dpn_idiv (32 and 64 bits, pipelined and combinational)
// against the host's C arithmetic, on all pairs of edge values then random operands, with ce
// toggling randomly. Division by zero and INT_MIN / -1 are checked against the documented values
// (q = -1, r = a; q = INT_MIN, r = 0). Prints one summary line per op; exits 1 at the first
// mismatch with operands, expected and obtained values in hex. Usage: Vint_tb_top [random_ops] [seed]
#include "Vint_tb_top.h"
#include "verilated.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

enum Op { MUL32, MUL64, DIV32, DIV64, MUL32C, DIV32C, NOPS };
static const int LATENCY[NOPS] = {3, 4, 18, 34, 0, 0};  // as the datapaths use them
static const char* NAME[NOPS] = {"imul i32", "imul i64", "idiv i32", "idiv i64", "imul i32 (comb)", "idiv i32 (comb)"};

struct Res {
    uint64_t y, r;
};
static void div32(int32_t a, int32_t b, uint64_t& q, uint64_t& r) {
    if (b == 0) {
        q = 0xffffffffu;
        r = (uint32_t)a;
    } else if (a == INT32_MIN && b == -1) {
        q = (uint32_t)INT32_MIN;
        r = 0;
    } else {
        q = (uint32_t)(a / b);
        r = (uint32_t)(a % b);
    }
}
static Res reference(int op, uint64_t a, uint64_t b) {
    Res res{0, 0};
    switch (op) {
    case MUL32:
    case MUL32C: res.y = (uint32_t)((uint32_t)a * (uint32_t)b); break;
    case MUL64: res.y = a * b; break;
    case DIV32:
    case DIV32C: div32((int32_t)a, (int32_t)b, res.y, res.r); break;
    case DIV64: {
        int64_t x = (int64_t)a, y = (int64_t)b;
        if (y == 0) {
            res.y = ~0ULL;
            res.r = a;
        } else if (x == INT64_MIN && y == -1) {
            res.y = a;
            res.r = 0;
        } else {
            res.y = (uint64_t)(x / y);
            res.r = (uint64_t)(x % y);
        }
        break;
    }
    }
    return res;
}
static Res output(Vint_tb_top* t, int op) {
    switch (op) {
    case MUL32: return {t->mul32_y, 0};
    case MUL64: return {t->mul64_y, 0};
    case DIV32: return {t->div32_q, t->div32_r};
    case DIV64: return {t->div64_q, t->div64_r};
    case MUL32C: return {t->mul32c_y, 0};
    case DIV32C: return {t->div32c_q, t->div32c_r};
    }
    abort();
}

static uint64_t rng_state = 1;
static uint64_t rnd() {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static std::vector<uint64_t> EDGES;
static std::vector<uint64_t> edges() {
    std::vector<uint64_t> v;
    for (int64_t x : {0LL, 1LL, 2LL, 3LL, 7LL, 10LL, 0x7fffffffLL, 0x7ffffffeLL, 0x80000000LL, 0xffffffffLL, 0x10000LL, 0x7fffffffffffffffLL,
                      0x7ffffffffffffffeLL, 0x100000000LL, 0x123456789abcdefLL}) {
        v.push_back((uint64_t)x);
        v.push_back(-(uint64_t)x);
    }
    v.push_back(0x8000000000000000ULL);
    v.push_back(0xffffffff80000000ULL);  // INT32_MIN sign-extended
    v.push_back(0x80000000ffffffffULL);  // low half -1, high half INT64_MIN
    return v;
}
static uint64_t random_operand() {
    uint64_t r = rnd();
    switch (rnd() % 6) {
    case 0: return r;                                          // uniform
    case 1: return (uint64_t)((int64_t)(r % 201) - 100);       // small
    case 2: return (uint64_t)(int64_t)(int32_t)r;              // 32-bit sign-extended (both halves meaningful)
    case 3: return (int64_t)r >> (rnd() % 64);                 // any magnitude, sign-extended
    case 4: return r >> (rnd() % 64);                          // any magnitude, positive
    default: return EDGES[r % EDGES.size()];
    }
}

int main(int argc, char** argv) {
    long random_ops = argc > 1 ? atol(argv[1]) : 1000000;
    rng_state = argc > 2 ? strtoull(argv[2], nullptr, 0) : 0x1234567;
    if (rng_state == 0) rng_state = 1;
    EDGES = edges();
    auto ctx = std::make_unique<VerilatedContext>();
    auto top = std::make_unique<Vint_tb_top>(ctx.get());

    struct In {
        uint64_t a, b;
    };
    const int R = 64;  // above every LATENCY
    In hist[R];
    long pushed = 0, taken = 0, drain = 0;
    long edge_ops = (long)EDGES.size() * (long)EDGES.size();
    bool edge_phase = true;
    uint64_t cycle = 0;
    while (true) {
        long target = edge_phase ? edge_ops : random_ops;
        bool ce = taken >= target || rnd() % 100 < 70;
        In cur;
        if (ce && edge_phase && taken < target) cur = In{EDGES[taken / EDGES.size()], EDGES[taken % EDGES.size()]};
        else cur = In{random_operand(), random_operand()};
        top->a = cur.a;
        top->b = cur.b;
        top->ce = ce;
        top->clk = 0;
        top->eval();
        for (int op = 0; op < NOPS; op++) {
            int l = LATENCY[op];
            if (l > 0 && pushed < l) continue;
            const In& in = l == 0 ? cur : hist[(pushed - l) % R];
            Res want = reference(op, in.a, in.b), got = output(top.get(), op);
            if (want.y != got.y || want.r != got.r) {
                printf("MISMATCH %s (%s phase, cycle %llu): a=%016llx b=%016llx expected %llx,%llx got %llx,%llx\n", NAME[op],
                       edge_phase ? "edge" : "random", (unsigned long long)cycle, (unsigned long long)in.a, (unsigned long long)in.b,
                       (unsigned long long)want.y, (unsigned long long)want.r, (unsigned long long)got.y, (unsigned long long)got.r);
                return 1;
            }
        }
        top->clk = 1;
        top->eval();
        cycle++;
        if (ce) {
            hist[pushed % R] = cur;
            pushed++;
            if (taken < target) taken++;
            else drain++;
        }
        if (taken >= target && drain > R) {
            if (!edge_phase) break;
            edge_phase = false;
            taken = 0;
            drain = 0;
        }
    }
    for (int op = 0; op < NOPS; op++) printf("%s: %ld random + %ld edge ok\n", NAME[op], random_ops, edge_ops);
    printf("int: %llu cycles, 0 errors\n", (unsigned long long)cycle);
    top->final();
    return 0;
}
