//! The integration tests of `skillful-mcp`, one binary with a module per former test file; a
//! module that needs the client, the server or both is built only with those features.
//! `child_environment` is a binary of its own: it sets variables of the process.

#[cfg(all(feature = "client", feature = "server"))]
mod approval;
#[cfg(all(feature = "client", feature = "server"))]
mod archives;
#[cfg(all(feature = "client", feature = "server"))]
mod bounded_serving;
mod common;
mod final_form_python;
#[cfg(feature = "server")]
mod http_bounds;
#[cfg(all(feature = "client", feature = "server"))]
mod live_reload;
#[cfg(all(feature = "client", feature = "server"))]
mod python_interop;
#[cfg(all(feature = "client", feature = "server"))]
mod round_trip;
#[cfg(all(feature = "client", feature = "server"))]
mod serve_final_form;
#[cfg(feature = "client")]
mod source_python;
