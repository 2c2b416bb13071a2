//! Feeds arbitrary bytes to the SKILL.md parser and validator: any panic, hang or crash is a bug.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skillful_frontmatter::{FrontmatterLoader, ParseOptions, ValidationMode, parse};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = parse(&text, &ParseOptions::default());
    // With the delimiters supplied, the input reaches the YAML reader itself.
    let wrapped = format!("---\n{text}\n---\n");
    let _ = FrontmatterLoader::new(ValidationMode::Strict).load(&wrapped, Some("fuzz"));
});
