//! C++ backends.
