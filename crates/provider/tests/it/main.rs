//! Behaviour of the provider, its tools, inline skills and the source pipeline, through the public
//! API only. One test binary, one module per area.

mod common;
mod idempotency;
mod inline;
mod listing;
mod lookup;
mod paging;
mod pipeline;
mod prompt;
mod search;
mod tools;
