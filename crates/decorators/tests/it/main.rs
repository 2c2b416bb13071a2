//! The decorators over a real OpenAI-compatible server on 127.0.0.1 that behaves like a strict
//! local engine.

mod approval;
mod common;
mod ensure_user;
mod identity;
mod invocation;
