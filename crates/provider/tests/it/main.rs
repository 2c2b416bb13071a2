//! Behaviour of the provider and its tools (over inline skills among others), through the public
//! API only. One test binary, one module per area.

mod common;
mod idempotency;
mod inline;
mod jobs;
mod listing;
mod lookup;
mod paging;
mod prompt;
mod search;
mod tasks;
mod tools;
