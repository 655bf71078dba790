//! LYNGK (shared/rules/lyngk.md).
