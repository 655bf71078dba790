//! ZÈRTZ (shared/rules/zertz.md).
