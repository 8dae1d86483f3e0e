// ap_int.h: a software stand-in for a subset of Vitis HLS's ap_int<W> and ap_uint<W>, written
// for dpnc, so that the HLS C++ dpnc generates compiles with a plain C++17 compiler. It is not
// Xilinx's header; real HLS builds use Vitis's own.
//
// Supported: widths 1 <= W <= 64 (a static_assert rejects others), and ap_uint<512>, the width of
// a Vitis kernel's m_axi data port, with only what a bus beat needs (see its class below). An ap_uint<W> holds a value
// in [0, 2^W), an ap_int<W> a two's-complement value in [-2^(W-1), 2^(W-1)); every constructor
// and assignment wraps modulo 2^W, as in Vitis.
//
//   * construction, implicit, from any built-in integer (wraps), from float/double (truncates
//     toward zero, then wraps) and from any other ap_int/ap_uint (value, then wraps);
//   * implicit conversion to a 64-bit built-in integer: int64_t, except uint64_t for ap_uint<64>.
//     So binary + - * / % & | ^, unary - + !, and mixing with floating point, are the built-in
//     operators on 64-bit values; their result is a built-in integer (not wrapped to W bits:
//     ap_uint<8>(200) + ap_uint<8>(100) == 300, and ap_uint<8>(0) - 1 == -1, as in Vitis whose
//     results are wide enough). Results that do not fit in 64 bits are not modelled;
//   * comparisons == != < <= > >= between ap types and with built-in integers compare VALUES
//     (ap_uint<8>(255) > -1 holds, unlike 255u > -1 in C), as in Vitis;
//   * << >> and ~ keep the type of the left operand (ap_uint<8>(0x81) << 1 == 0x02: bits
//     shifted out are lost, as in Vitis); >> is arithmetic for ap_int; a negative shift amount
//     shifts the other way; amounts >= W give 0 (or -1 for a negative ap_int shifted right);
//   * compound assignments (+= ... >>=) and ++/-- wrap to W bits;
//   * bit and field reads: operator[](i), get_bit(i), test(i), range(hi, lo), operator()(hi, lo)
//     (hi < lo gives the bits reversed); writes: set_bit(i, b), set(i), clear(i);
//     and_reduce(), or_reduce(), xor_reduce(), iszero();
//   * to_int(), to_uint() (the low 32 bits), to_long(), to_ulong(), to_int64(), to_uint64()
//     (the two's-complement bits, sign-extended for ap_int), to_bool(), length().
// A bit index outside [0, W) aborts with a message.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

template <int W, bool S>
class ap_int_base;
template <int W>
class ap_int;
template <int W>
class ap_uint;

namespace ap_detail {

template <int W, bool S>
std::true_type is_ap_test(const ap_int_base<W, S>*);
std::false_type is_ap_test(...);

// True for ap_int_base and the classes derived from it (ap_int, ap_uint).
template <class T>
constexpr bool is_ap_v = decltype(is_ap_test(static_cast<const std::remove_reference_t<T>*>(nullptr)))::value;

template <class T>
constexpr bool is_int_v = std::is_integral_v<T>;

[[noreturn]] inline void bad_bit(const char* op, int i, int w) {
  std::fflush(stdout);
  std::fprintf(stderr, "ap_int: %s: bit %d outside 0..%d\n", op, i, w - 1);
  std::abort();
}

// A value as a sign and its 64-bit two's-complement bits: enough to compare any two values of
// ap types and built-in integers exactly.
struct Val {
  bool neg;
  uint64_t bits;
};

template <class I>
constexpr Val val_of(I v) {
  if constexpr (std::is_signed_v<I>) {
    return Val{v < 0, static_cast<uint64_t>(static_cast<int64_t>(v))};
  } else {
    return Val{false, static_cast<uint64_t>(v)};
  }
}

// -1, 0, 1. With equal signs the bit patterns order like the values (for two negatives too).
constexpr int compare(Val a, Val b) {
  if (a.neg != b.neg) return a.neg ? -1 : 1;
  return a.bits < b.bits ? -1 : (a.bits > b.bits ? 1 : 0);
}

// A shift amount, clamped to [-64, 64] (beyond that every shift gives the same result).
template <class I>
constexpr int shift_amount(I n) {
  if constexpr (std::is_signed_v<I>) {
    const int64_t v = static_cast<int64_t>(n);
    return v < -64 ? -64 : (v > 64 ? 64 : static_cast<int>(v));
  } else {
    const uint64_t v = static_cast<uint64_t>(n);
    return v > 64 ? 64 : static_cast<int>(v);
  }
}

// Truncation toward zero, then modulo 2^64.
inline uint64_t from_floating(double d) {
  if (!(d == d)) return 0;  // NaN
  d = std::trunc(d);
  constexpr double k2_63 = 9223372036854775808.0;
  constexpr double k2_64 = 18446744073709551616.0;
  if (d >= -k2_63 && d < k2_63) return static_cast<uint64_t>(static_cast<int64_t>(d));
  double m = std::fmod(d, k2_64);  // exact; in (-2^64, 2^64), sign of d
  if (m < 0) m += k2_64;
  if (m >= k2_64) m = 0;
  return m < k2_63 ? static_cast<uint64_t>(m) : static_cast<uint64_t>(m - k2_63) + (uint64_t(1) << 63);
}

}  // namespace ap_detail

// The common base, as in Vitis: S is signedness. Use ap_int<W> and ap_uint<W>.
template <int W, bool S>
class ap_int_base {
  static_assert(W >= 1 && W <= 64, "this ap_int stand-in supports widths 1 to 64 only");

 public:
  // The built-in type a value converts to implicitly.
  using builtin_type = std::conditional_t<(!S && W == 64), uint64_t, int64_t>;
  static constexpr int width = W;
  static constexpr bool sign_flag = S;

  constexpr ap_int_base() = default;

  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  constexpr ap_int_base(T v) : v_(wrap(static_cast<uint64_t>(v))) {}

  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  ap_int_base(T v) : v_(wrap(ap_detail::from_floating(static_cast<double>(v)))) {}

  template <int W2, bool S2>
  constexpr ap_int_base(const ap_int_base<W2, S2>& o) : v_(wrap(o.to_uint64())) {}

  constexpr operator builtin_type() const { return static_cast<builtin_type>(v_); }

  // --- conversions and queries
  constexpr int length() const { return W; }
  constexpr int to_int() const { return static_cast<int>(static_cast<uint32_t>(v_)); }
  constexpr unsigned to_uint() const { return static_cast<unsigned>(v_); }
  constexpr long to_long() const { return static_cast<long>(v_); }
  constexpr unsigned long to_ulong() const { return static_cast<unsigned long>(v_); }
  constexpr int64_t to_int64() const { return static_cast<int64_t>(v_); }
  constexpr uint64_t to_uint64() const { return v_; }
  constexpr bool to_bool() const { return v_ != 0; }
  constexpr bool iszero() const { return v_ == 0; }

  // --- bits
  constexpr bool operator[](int i) const { return get_bit(i); }
  constexpr bool get_bit(int i) const {
    if (i < 0 || i >= W) ap_detail::bad_bit("read", i, W);
    return ((v_ >> i) & 1u) != 0;
  }
  constexpr bool test(int i) const { return get_bit(i); }
  void set_bit(int i, bool b) {
    if (i < 0 || i >= W) ap_detail::bad_bit("set_bit", i, W);
    const uint64_t m = uint64_t(1) << i;
    v_ = wrap(b ? (v_ | m) : (v_ & ~m));
  }
  void set(int i) { set_bit(i, true); }
  void clear(int i) { set_bit(i, false); }

  // Bits hi..lo, bit lo landing at bit 0. With hi < lo the field is reversed: result bit k is
  // bit lo - k (so bit lo still lands at bit 0 and bit hi on top).
  constexpr ap_uint<W> range(int hi, int lo) const {
    if (hi < 0 || hi >= W) ap_detail::bad_bit("range", hi, W);
    if (lo < 0 || lo >= W) ap_detail::bad_bit("range", lo, W);
    uint64_t r = 0;
    if (hi >= lo) {
      const int n = hi - lo + 1;
      r = (v_ >> lo) & (~uint64_t(0) >> (64 - n));
    } else {
      for (int k = 0; k <= lo - hi; ++k) r |= ((v_ >> (lo - k)) & 1u) << k;
    }
    return ap_uint<W>(r);
  }
  constexpr ap_uint<W> operator()(int hi, int lo) const { return range(hi, lo); }

  constexpr bool and_reduce() const { return (v_ & kMask) == kMask; }
  constexpr bool or_reduce() const { return v_ != 0; }
  constexpr bool xor_reduce() const {
    uint64_t x = v_ & kMask;
    bool p = false;
    while (x) {
      p = !p;
      x &= x - 1;
    }
    return p;
  }

  // --- operators that keep the type
  constexpr ap_int_base operator~() const { return ap_int_base(~v_); }

  template <class I, std::enable_if_t<ap_detail::is_int_v<I>, int> = 0>
  constexpr ap_int_base operator<<(I n) const {
    return shl(ap_detail::shift_amount(n));
  }
  template <int W2, bool S2>
  constexpr ap_int_base operator<<(const ap_int_base<W2, S2>& n) const {
    return shl(amount(n));
  }
  template <class I, std::enable_if_t<ap_detail::is_int_v<I>, int> = 0>
  constexpr ap_int_base operator>>(I n) const {
    return shr(ap_detail::shift_amount(n));
  }
  template <int W2, bool S2>
  constexpr ap_int_base operator>>(const ap_int_base<W2, S2>& n) const {
    return shr(amount(n));
  }

  // --- assignments that wrap
  constexpr ap_int_base& operator++() {
    v_ = wrap(v_ + 1);
    return *this;
  }
  constexpr ap_int_base& operator--() {
    v_ = wrap(v_ - 1);
    return *this;
  }
  constexpr ap_int_base operator++(int) {
    const ap_int_base old = *this;
    v_ = wrap(v_ + 1);
    return old;
  }
  constexpr ap_int_base operator--(int) {
    const ap_int_base old = *this;
    v_ = wrap(v_ - 1);
    return old;
  }

#define AP_STANDIN_COMPOUND(OP)                                                            \
  template <class R, std::enable_if_t<std::is_arithmetic_v<R> || ap_detail::is_ap_v<R>, int> = 0> \
  ap_int_base& operator OP##=(const R& r) {                                                \
    return *this = ap_int_base(static_cast<builtin_type>(*this) OP r);                     \
  }
  AP_STANDIN_COMPOUND(+)
  AP_STANDIN_COMPOUND(-)
  AP_STANDIN_COMPOUND(*)
  AP_STANDIN_COMPOUND(/)
  AP_STANDIN_COMPOUND(%)
  AP_STANDIN_COMPOUND(&)
  AP_STANDIN_COMPOUND(|)
  AP_STANDIN_COMPOUND(^)
#undef AP_STANDIN_COMPOUND

  template <class R, std::enable_if_t<ap_detail::is_int_v<R> || ap_detail::is_ap_v<R>, int> = 0>
  constexpr ap_int_base& operator<<=(const R& n) {
    return *this = *this << n;
  }
  template <class R, std::enable_if_t<ap_detail::is_int_v<R> || ap_detail::is_ap_v<R>, int> = 0>
  constexpr ap_int_base& operator>>=(const R& n) {
    return *this = *this >> n;
  }

  // Sign and bits, for exact comparisons.
  constexpr ap_detail::Val val() const { return ap_detail::Val{S && (v_ >> 63) != 0, v_}; }

 private:
  static constexpr uint64_t kMask = ~uint64_t(0) >> (64 - W);

  // Keeps the low W bits and extends them to 64 (sign extension for ap_int), so that v_ is
  // always the value's 64-bit two's-complement pattern.
  static constexpr uint64_t wrap(uint64_t x) {
    x &= kMask;
    if constexpr (S) {
      const uint64_t sign = uint64_t(1) << (W - 1);
      x = (x ^ sign) - sign;
    }
    return x;
  }

  template <int W2, bool S2>
  static constexpr int amount(const ap_int_base<W2, S2>& n) {
    if constexpr (S2) {
      return ap_detail::shift_amount(n.to_int64());
    } else {
      return ap_detail::shift_amount(n.to_uint64());
    }
  }

  constexpr ap_int_base shl(int n) const {
    if (n < 0) return shr(-n);
    if (n >= 64) return ap_int_base(0);
    return ap_int_base(v_ << n);
  }

  constexpr ap_int_base shr(int n) const {
    if (n < 0) return shl(-n);
    const bool neg = S && (v_ >> 63) != 0;
    if (n >= 64) return ap_int_base(neg ? ~uint64_t(0) : 0);
    return ap_int_base(neg ? ~(~v_ >> n) : (v_ >> n));
  }

  uint64_t v_ = 0;
};

// --- comparisons by value: ap with ap, ap with built-in integer, built-in integer with ap
#define AP_STANDIN_COMPARE(OP)                                                                              \
  template <int W1, bool S1, int W2, bool S2>                                                               \
  constexpr bool operator OP(const ap_int_base<W1, S1>& a, const ap_int_base<W2, S2>& b) {                  \
    return ap_detail::compare(a.val(), b.val()) OP 0;                                                       \
  }                                                                                                         \
  template <int W, bool S, class I, std::enable_if_t<ap_detail::is_int_v<I>, int> = 0>                      \
  constexpr bool operator OP(const ap_int_base<W, S>& a, I b) {                                             \
    return ap_detail::compare(a.val(), ap_detail::val_of(b)) OP 0;                                          \
  }                                                                                                         \
  template <int W, bool S, class I, std::enable_if_t<ap_detail::is_int_v<I>, int> = 0>                      \
  constexpr bool operator OP(I a, const ap_int_base<W, S>& b) {                                             \
    return ap_detail::compare(ap_detail::val_of(a), b.val()) OP 0;                                          \
  }
AP_STANDIN_COMPARE(==)
AP_STANDIN_COMPARE(!=)
AP_STANDIN_COMPARE(<)
AP_STANDIN_COMPARE(<=)
AP_STANDIN_COMPARE(>)
AP_STANDIN_COMPARE(>=)
#undef AP_STANDIN_COMPARE

// Signed W-bit integer.
template <int W>
class ap_int : public ap_int_base<W, true> {
  using base = ap_int_base<W, true>;

 public:
  constexpr ap_int() = default;
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  constexpr ap_int(T v) : base(v) {}
  template <int W2, bool S2>
  constexpr ap_int(const ap_int_base<W2, S2>& o) : base(o) {}
};

// Unsigned W-bit integer.
template <int W>
class ap_uint : public ap_int_base<W, false> {
  using base = ap_int_base<W, false>;

 public:
  constexpr ap_uint() = default;
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  constexpr ap_uint(T v) : base(v) {}
  template <int W2, bool S2>
  constexpr ap_uint(const ap_int_base<W2, S2>& o) : base(o) {}
};

// ap_uint<512>: one beat of a 512-bit m_axi port. Only what dpnc's kernels do with a beat: zero
// construction, copies, equality, and fields of 1 to 64 bits read and written through
// range(hi, lo) with hi >= lo, as Vitis's range references do (`x.range(31, 0) = v;`,
// `x.range(31, 0).to_uint64()`). Bit 64k + j is bit j of w[k], so on a little-endian host the
// object's bytes are the beat's bytes in address order.
template <>
class ap_uint<512> {
 public:
  uint64_t w[8];

  constexpr ap_uint() : w{} {}

  // A field of at most 64 bits, hi >= lo.
  template <class Word>
  class field {
    Word* w_;
    int hi_, lo_;

   public:
    constexpr field(Word* w, int hi, int lo) : w_(w), hi_(hi), lo_(lo) {
      if (hi < 0 || hi >= 512) ap_detail::bad_bit("range", hi, 512);
      if (lo < 0 || lo > hi || hi - lo >= 64) ap_detail::bad_bit("range (a field of 1 to 64 bits, hi >= lo)", lo, 512);
    }
    constexpr uint64_t mask() const { return hi_ - lo_ == 63 ? ~0ull : (1ull << (hi_ - lo_ + 1)) - 1; }
    constexpr uint64_t to_uint64() const {
      const int k = lo_ / 64, s = lo_ % 64;
      uint64_t v = w_[k] >> s;
      if (s != 0 && k < 7) v |= w_[k + 1] << (64 - s);
      return v & mask();
    }
    // Writes the low bits of v into the field; the other bits of the beat are kept.
    template <class V, std::enable_if_t<!std::is_const_v<Word> && (std::is_integral_v<V> || ap_detail::is_ap_v<V>), int> = 0>
    constexpr field& operator=(const V& v) {
      const uint64_t bits = static_cast<uint64_t>(v) & mask();
      const int k = lo_ / 64, s = lo_ % 64;
      w_[k] = (w_[k] & ~(mask() << s)) | (bits << s);
      if (s != 0 && k < 7) {
        const uint64_t m = mask() >> (64 - s);
        w_[k + 1] = (w_[k + 1] & ~m) | (bits >> (64 - s));
      }
      return *this;
    }
  };

  constexpr field<uint64_t> range(int hi, int lo) { return field<uint64_t>(w, hi, lo); }
  constexpr field<const uint64_t> range(int hi, int lo) const { return field<const uint64_t>(w, hi, lo); }

  constexpr bool operator==(const ap_uint& o) const {
    for (int k = 0; k < 8; ++k)
      if (w[k] != o.w[k]) return false;
    return true;
  }
  constexpr bool operator!=(const ap_uint& o) const { return !(*this == o); }
};
