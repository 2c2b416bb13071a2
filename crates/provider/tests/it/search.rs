//! `SearchIndex`: its behaviour on small skill sets, and its ranking quality on real skills
//! against plain BM25.

mod baseline;
mod behaviour;
mod quality;
