//! The agent end to end over the example skills, against a real OpenAI-compatible server on
//! 127.0.0.1 that behaves like a strict local engine.

mod aids;
mod approvals;
mod approver;
mod audit;
mod bound;
mod collector;
mod common;
mod forged;
mod guided;
mod marathon;
mod real_engine;
mod real_server;
mod tasks;
mod text_calls;
