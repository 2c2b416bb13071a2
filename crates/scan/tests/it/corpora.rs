//! The real skills vendored in `tests/corpora` (copies of anthropics/skills and
//! obra/superpowers): honest skills, in which the scanner counts no finding, so that a rule that
//! would flag them fails here first.

#[test]
fn the_vendored_corpora_have_no_finding() {
    let corpora = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpora");
    let report = skillful_scan::scan_paths(&[corpora.into()]).unwrap();
    // Every SKILL.md of the corpora (27 when they were vendored).
    assert!(report.skills >= 27, "only {} skills scanned", report.skills);
    let counted: Vec<_> = report.counted().collect();
    assert!(counted.is_empty(), "{counted:#?}");
}
