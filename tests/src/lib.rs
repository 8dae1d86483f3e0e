//! End-to-end tests live in `tests/*.rs`; kernels in `kernels/`, bad inputs in `bad/`.
