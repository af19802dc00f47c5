//! hop-policy: computes exactly what an flvx panel deploys for a relay tunnel
//! (local commands and federated provider commands), then checks it for
//! failover defects, simulates GOST failover and replays edit/release lifecycles.
//!
//! The core is plain Rust over typed inputs (serde types, read from the
//! one document tree every JSON text is read into, `json::tree`); `wasm`
//! is the only module that knows about JavaScript.

// A panic inside wasm kills the instance the page depends on: non-test code
// may not unwrap, expect, index or panic.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

/// The allocator of the `.wasm` (see Cargo.toml).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

pub mod address;
pub mod api;
pub mod builders;
pub mod check;
pub mod cleanup;
pub mod coerce;
pub mod encode;
pub mod error;
pub mod finding;
pub mod forward;
pub mod go;
pub(crate) mod gost;
pub mod json;
#[cfg(test)]
mod json_tree_tests;
pub mod lifecycle;
pub mod limits;
pub mod lookup;
pub mod model;
pub mod options;
pub mod plan;
pub mod planner;
pub mod redact;
pub mod simulate;
pub(crate) mod sorting;
pub(crate) mod strings;
pub(crate) mod text_pieces;
pub mod wasm;

pub use error::ApiError;
pub use finding::{Finding, Fix, Severity};
pub use plan::Plan;
pub use planner::plan;
