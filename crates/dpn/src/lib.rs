//! Planned (see ARCHITECTURE.md); not yet implemented.
