//! DVONN (shared/rules/dvonn.md).
