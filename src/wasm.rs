//! JavaScript bindings: convert, call the core, convert back. Nothing else.
