// Testbench for fp_tb_f32 / fp_tb_f64 (whichever model it is built with): every float cell against the
// host's SSE arithmetic and glibc fmin/fmax, bit for bit. First all pairs of hand-picked edge values,
// then random operands from a mix of distributions; ce toggles randomly and each cell has its own
// latency, so the pipelines are exercised. Prints one summary line per op; exits 1 at the first
// mismatch, printing the operands, the expected and the obtained result in hex.
// Usage: Vfp_tb_fNN [random_ops] [seed]
#if __has_include("Vfp_tb_f32.h")
#include "Vfp_tb_f32.h"
typedef Vfp_tb_f32 Top;
typedef uint32_t U;   // this format's encoding
typedef uint64_t UO;  // the other format's (dpn_f2f output)
static const int EW = 8, MW = 23;
static const char* FMT = "f32";
#else
#include "Vfp_tb_f64.h"
typedef Vfp_tb_f64 Top;
typedef uint64_t U;
typedef uint32_t UO;
static const int EW = 11, MW = 52;
static const char* FMT = "f64";
#endif
#include "verilated.h"
#include <immintrin.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

// Latencies given to the cells in fp_tb_cells.v.
enum Op { ADD, SUB, MUL, DIV, SQRT, CMP, MIN, MAX, I2F32, I2F64, F2I32, F2I64, F2F, NOPS };
static const int LATENCY[NOPS] = {5, 2, 6, 16, 16, 1, 0, 2, 3, 1, 2, 0, 3};
static const char* NAME[NOPS] = {"fadd", "fsub", "fmul", "fdiv", "fsqrt", "fcmp", "fmin", "fmax",
                                 "i2f(i32)", "i2f(i64)", "f2i(i32)", "f2i(i64)", "f2f"};

static const int W = EW + MW + 1;
static const U SIGN = (U)1 << (W - 1);
static const U FRAC = ((U)1 << MW) - 1;
static const U QBIT = (U)1 << (MW - 1);
static const U EMAX = ((U)1 << EW) - 1;
static const U BIAS = ((U)1 << (EW - 1)) - 1;
static U make(U sign, U exp, U frac) { return (sign ? SIGN : 0) | (exp & EMAX) << MW | (frac & FRAC); }

// ---- references (bit-exact x86-64 SSE, glibc) ----
static __m128 ps(uint32_t x) { return _mm_castsi128_ps(_mm_cvtsi32_si128((int)x)); }
static __m128d pd(uint64_t x) { return _mm_castsi128_pd(_mm_cvtsi64_si128((long long)x)); }
static uint32_t bits(__m128 v) { return (uint32_t)_mm_cvtsi128_si32(_mm_castps_si128(v)); }
static uint64_t bits(__m128d v) { return (uint64_t)_mm_cvtsi128_si64(_mm_castpd_si128(v)); }
static float (*volatile fminf_p)(float, float) = fminf;
static float (*volatile fmaxf_p)(float, float) = fmaxf;
static double (*volatile fmin_p)(double, double) = fmin;
static double (*volatile fmax_p)(double, double) = fmax;

template <typename T> static T as(uint64_t x) {
    T r;
    if (sizeof(T) == 4) {
        uint32_t y = (uint32_t)x;
        memcpy(&r, &y, 4);
    } else {
        memcpy(&r, &x, 8);
    }
    return r;
}
template <typename T> static uint64_t raw(T v) {
    if (sizeof(T) == 4) {
        uint32_t y;
        memcpy(&y, &v, 4);
        return y;
    }
    uint64_t y;
    memcpy(&y, &v, 8);
    return y;
}
template <typename F> static uint64_t cmp_flags(uint64_t a, uint64_t b) {
    volatile F x = as<F>(a), y = as<F>(b);
    return (uint64_t)(x < y) << 5 | (uint64_t)(x <= y) << 4 | (uint64_t)(x > y) << 3 | (uint64_t)(x >= y) << 2 |
           (uint64_t)(x == y) << 1 | (uint64_t)(x != y);
}

static uint64_t reference(int op, uint64_t a, uint64_t b, uint64_t x) {
#if __has_include("Vfp_tb_f32.h")
    __m128 va = ps((uint32_t)a), vb = ps((uint32_t)b), z = _mm_setzero_ps();
    switch (op) {
    case ADD: return bits(_mm_add_ss(va, vb));
    case SUB: return bits(_mm_sub_ss(va, vb));
    case MUL: return bits(_mm_mul_ss(va, vb));
    case DIV: return bits(_mm_div_ss(va, vb));
    case SQRT: return bits(_mm_sqrt_ss(va));
    case CMP: return cmp_flags<float>(a, b);
    case MIN: return raw(fminf_p(as<float>(a), as<float>(b)));
    case MAX: return raw(fmaxf_p(as<float>(a), as<float>(b)));
    case I2F32: return bits(_mm_cvtsi32_ss(z, (int)(uint32_t)x));
    case I2F64: return bits(_mm_cvtsi64_ss(z, (long long)x));
    case F2I32: return (uint32_t)_mm_cvttss_si32(va);
    case F2I64: return (uint64_t)_mm_cvttss_si64(va);
    case F2F: return bits(_mm_cvtss_sd(_mm_setzero_pd(), va));
    }
#else
    __m128d va = pd(a), vb = pd(b), z = _mm_setzero_pd();
    switch (op) {
    case ADD: return bits(_mm_add_sd(va, vb));
    case SUB: return bits(_mm_sub_sd(va, vb));
    case MUL: return bits(_mm_mul_sd(va, vb));
    case DIV: return bits(_mm_div_sd(va, vb));
    case SQRT: return bits(_mm_sqrt_sd(z, va));
    case CMP: return cmp_flags<double>(a, b);
    case MIN: return raw(fmin_p(as<double>(a), as<double>(b)));
    case MAX: return raw(fmax_p(as<double>(a), as<double>(b)));
    case I2F32: return bits(_mm_cvtsi32_sd(z, (int)(uint32_t)x));
    case I2F64: return bits(_mm_cvtsi64_sd(z, (long long)x));
    case F2I32: return (uint32_t)_mm_cvttsd_si32(va);
    case F2I64: return (uint64_t)_mm_cvttsd_si64(va);
    case F2F: return bits(_mm_cvtsd_ss(_mm_setzero_ps(), va));
    }
#endif
    abort();
}

static uint64_t output(Top* top, int op) {
    switch (op) {
    case ADD: return top->add_y;
    case SUB: return top->sub_y;
    case MUL: return top->mul_y;
    case DIV: return top->div_y;
    case SQRT: return top->sqrt_y;
    case CMP: return top->cmp_y;
    case MIN: return top->min_y;
    case MAX: return top->max_y;
    case I2F32: return top->i2f32_y;
    case I2F64: return top->i2f64_y;
    case F2I32: return top->f2i32_y;
    case F2I64: return top->f2i64_y;
    case F2F: return top->f2f_y;
    }
    abort();
}

// ---- operands ----
static uint64_t rng_state = 1;
static uint64_t rnd() {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static U from_double(double d) {
#if __has_include("Vfp_tb_f32.h")
    return (U)raw((float)d);
#else
    return (U)raw(d);
#endif
}

static std::vector<U> float_edges() {
    std::vector<U> v;
    auto both = [&](U x) {
        v.push_back(x);
        v.push_back(x ^ SIGN);
    };
    U one = BIAS << MW, two = (BIAS + 1) << MW;
    both(0);                                        // zeros
    both(EMAX << MW);                               // infinities
    both(EMAX << MW | QBIT);                        // default quiet NaN
    both(EMAX << MW | QBIT | 0x12345);              // quiet NaN with payload
    both(EMAX << MW | 1);                           // signalling NaNs
    both(EMAX << MW | (QBIT - 1));
    both(EMAX << MW | 0x5a5a);
    both(1);                                        // smallest subnormal
    both(3);
    both(QBIT);                                     // subnormals
    both(FRAC);                                     // largest subnormal
    both((U)1 << MW);                               // smallest normal
    both(((U)1 << MW) + 1);
    both(((EMAX - 1) << MW) | FRAC);                // largest normal
    both(((EMAX - 1) << MW) | (FRAC - 1));
    both((EMAX - 1) << MW);
    both(one);                                      // 1, 1 + ulp, 1 - ulp/2, 2, 3, 0.5, 1.5, 2 - ulp
    both(one + 1);
    both(one - 1);
    both(two);
    both(two | QBIT);
    both((BIAS - 1) << MW);
    both(one | QBIT);
    both(one | FRAC);
    both((BIAS + MW + 1) << MW);                    // 2^(MW+1): + 1 is a rounding tie
    both(((BIAS + MW + 1) << MW) | 1);
    both((BIAS + 31) << MW);                        // int32 / int64 conversion boundaries
    both(((BIAS + 31) << MW) - 1);
    both(((BIAS + 31) << MW) + 1);
    both((BIAS + 32) << MW);
    both((BIAS + 63) << MW);
    both(((BIAS + 63) << MW) - 1);
    both(((BIAS + 63) << MW) + 1);
    both((2 * BIAS) << MW);                         // 2^BIAS
    both(from_double(2147483647.5));
    both(from_double(2147483648.5));
    both(from_double(2147483648.99));
    both(from_double(2147483649.0));
    both(from_double(0.49999999999));
    both(from_double(0.99999999999));
    both(from_double(1.0 / 3.0));
    both(from_double(1e-40));
    both(from_double(M_PI));
    both(from_double(1e10));
    both(from_double(3.4028234663852886e38));  // binary32 limits (f2f narrowing): max, max + ulp/2 (tie), 2^128
    both(from_double(3.4028235677973366e38));
    both(from_double(3.4028236692093846e38));
    both(from_double(1.1754943508222875e-38));  // smallest normal, smallest subnormal and half of it (tie), 1.5 x it
    both(from_double(1.401298464324817e-45));
    both(from_double(7.006492321624085e-46));
    both(from_double(2.1019476964872256e-45));
    return v;
}

static std::vector<uint64_t> int_edges() {
    std::vector<uint64_t> v;
    auto both = [&](int64_t x) {
        v.push_back((uint64_t)x);
        v.push_back((uint64_t)-(uint64_t)x);
    };
    for (int64_t x : {0LL, 1LL, 2LL, 3LL, 7LL, 1000LL}) both(x);
    for (int64_t x : {0x7fffffffLL, 0x80000000LL, 0x7ffffffeLL, 0xffffffffLL, 0x7fffffc0LL, 0x7fffffbfLL, 0x7fffffc1LL,
                      0x1000001LL, 0x1000003LL, 0x2000002LL, 0x2000006LL, 0xffffffLL, 0x1000000LL})
        both(x);
    for (int64_t x : {0x20000000000001LL, 0x20000000000003LL, 0x1fffffffffffffLL, 0x4000000000000400LL, 0x4000000000000c00LL,
                      0x4000000000000401LL, 0x4000004000000000LL, 0x400000c000000000LL, 0x4000004000000001LL,
                      0x7ffffffffffffdffLL, 0x7ffffffffffffe00LL, 0x7fffff8000000000LL, 0x7fffffffffffffffLL,
                      0x7ffffffffffffffeLL, 0x100000000LL})
        both(x);
    v.push_back(0x8000000000000000ULL);
    v.push_back(0x8000000000000001ULL);
    v.push_back(0xffffffff80000000ULL);
    return v;
}

static std::vector<U> EDGES;
static std::vector<uint64_t> IEDGES;

// A random mantissa: uniform, with trailing zeros (exact results, rounding ties) or with trailing ones.
static U random_frac() {
    U f = (U)rnd() & FRAC;
    switch (rnd() % 4) {
    case 0: return f & (FRAC << (rnd() % MW));
    case 1: return f | (FRAC >> (rnd() % MW));
    default: return f;
    }
}
static U random_float(int dist) {
    U s = rnd() & 1;
    switch (dist) {
    case 0: return (U)rnd();                                                  // uniform bits
    case 1: return make(s, rnd() % 3 == 0 ? 0 : 1 + rnd() % 3, random_frac()); // subnormal-heavy
    case 2: return from_double((double)((int64_t)(rnd() % 2001) - 1000));     // small integers
    case 3: return make(s, BIAS - 2 + rnd() % 68, random_frac());             // conversion range
    case 4: return make(s, BIAS - 8 + rnd() % 17, random_frac());             // near 1
    case 5: return make(s, rnd() % 2 ? rnd() % 40 : EMAX - 1 - rnd() % 40, random_frac());  // extreme exponents
    case 6: {  // around binary32's range limits (narrowing f2f: overflow, subnormal results)
        int64_t e = (int64_t)BIAS + (rnd() % 2 ? 1 : -1) * (int64_t)(100 + rnd() % 60);
        return make(s, e < 0 ? 0 : e > (int64_t)EMAX ? EMAX : (U)e, random_frac());
    }
    default: return EDGES[rnd() % EDGES.size()];
    }
}
static uint64_t random_int() {
    uint64_t r = rnd();
    switch (rnd() % 6) {
    case 0: return r;
    case 1: return (uint64_t)((int64_t)(r % 2001) - 1000);
    case 2: return (uint64_t)(int64_t)(int32_t)r;
    case 3: {  // near a power of two
        uint64_t x = ((uint64_t)1 << (r % 64)) + (rnd() % 7) - 3;
        return rnd() & 1 ? -x : x;
    }
    case 4: return (r >> (rnd() % 64)) << (rnd() % 40);  // short odd patterns shifted: rounding ties
    default: return IEDGES[r % IEDGES.size()];
    }
}
struct In {
    uint64_t a, b, x;
};
static In random_in() {
    In in;
    int dist = rnd() % 8;
    U a = random_float(dist), b;
    switch (rnd() % 4) {
    case 0: b = random_float(dist); break;
    case 1: b = random_float(rnd() % 8); break;
    case 2: {  // exponent close to a's
        int64_t e = (int64_t)((a >> MW) & EMAX) + (int64_t)(rnd() % 7) - 3;
        b = make(rnd() & 1, e < 0 ? 0 : e > (int64_t)EMAX ? EMAX : (U)e, random_frac());
        break;
    }
    default:  // nearly +-a: cancellation
        b = (a ^ ((U)rnd() & (((U)1 << (rnd() % (MW + 1))) - 1))) ^ (rnd() & 1 ? SIGN : 0);
    }
    if (rnd() & 1) std::swap(a, b);
    if (rnd() % 4 == 0) a &= ~SIGN;  // more positive operands for fsqrt
    in.a = a;
    in.b = b;
    in.x = random_int();
    return in;
}

int main(int argc, char** argv) {
    long random_ops = argc > 1 ? atol(argv[1]) : 1000000;
    rng_state = argc > 2 ? strtoull(argv[2], nullptr, 0) : 0x1234567;
    if (rng_state == 0) rng_state = 1;
    EDGES = float_edges();
    IEDGES = int_edges();
    auto ctx = std::make_unique<VerilatedContext>();
    auto top = std::make_unique<Top>(ctx.get());

    const int R = 64;  // ring of the operands taken at the last R ce edges (R >= every LATENCY)
    In hist[R];
    long pushed = 0;   // ce edges so far
    long edge_ops = (long)EDGES.size() * (long)EDGES.size();
    long phase_start = 0;
    bool edge_phase = true;
    long taken = 0;     // operand sets of the current phase taken by a ce edge
    int drain = 0;
    uint64_t cycle = 0;
    top->clk = 0;
    while (true) {
        long target = edge_phase ? edge_ops : random_ops;
        In cur;
        bool ce;
        if (taken >= target) {
            // drain the pipelines of the phase with ce = 1 and random operands (checked, not counted)
            ce = true;
            cur = random_in();
        } else {
            ce = rnd() % 100 < 70;
            if (ce && edge_phase) {
                long i = taken / (long)EDGES.size(), j = taken % (long)EDGES.size();
                cur = In{EDGES[i], EDGES[j], IEDGES[taken % IEDGES.size()]};
            } else {
                cur = random_in();
            }
        }
        top->a = (U)cur.a;
        top->b = (U)cur.b;
        top->x = cur.x;
        top->ce = ce;
        top->clk = 0;
        top->eval();
        for (int op = 0; op < NOPS; op++) {
            int l = LATENCY[op];
            if (l > 0 && pushed < l) continue;
            const In& in = l == 0 ? cur : hist[(pushed - l) % R];
            uint64_t want = reference(op, in.a, in.b, in.x), got = output(top.get(), op);
            if (want != got) {
                printf("MISMATCH %s %s (%s phase, cycle %llu): a=%0*llx b=%0*llx x=%016llx expected %llx got %llx\n", NAME[op], FMT,
                       edge_phase ? "edge" : "random", (unsigned long long)cycle, W / 4, (unsigned long long)in.a, W / 4,
                       (unsigned long long)in.b, (unsigned long long)in.x, (unsigned long long)want, (unsigned long long)got);
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
            phase_start = pushed;
        }
    }
    (void)phase_start;
    for (int op = 0; op < NOPS; op++) {
        printf("%s %s: %ld random + %ld edge ok\n", NAME[op], FMT, random_ops, edge_ops);
    }
    printf("%s: %llu cycles, 0 errors\n", FMT, (unsigned long long)cycle);
    top->final();
    return 0;
}
