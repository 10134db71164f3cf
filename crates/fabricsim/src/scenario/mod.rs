//! Scenarios: the schema, loading with precise errors, and validation.

pub mod error;
pub mod load;
pub mod loop_schema;
pub mod schema;
pub mod validate;

pub use error::{Error, ErrorKind, Result};
pub use load::DEFAULT_SCENARIO_TOML;
pub use schema::*;
