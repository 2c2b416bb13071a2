//! Differential test: our parser and PyYAML (restricted to the YAML 1.2 core schema) must read
//! the same frontmatter the same way. Needs `python3` with PyYAML (`pip install pyyaml`).

use std::io::Write;
use std::process::{Command, Stdio};

use skillful_frontmatter::{ParseOptions, parse};

/// Loads each JSON-encoded document with PyYAML's safe loader, its implicit types narrowed to the
/// YAML 1.2 core schema (PyYAML alone follows YAML 1.1, where `yes` is a boolean).
const PYYAML: &str = r#"
import json, re, sys, yaml
class Core(yaml.SafeLoader): pass
Core.yaml_implicit_resolvers = {
    k: [r for r in v if r[0] not in ('tag:yaml.org,2002:bool', 'tag:yaml.org,2002:int',
                                     'tag:yaml.org,2002:float', 'tag:yaml.org,2002:timestamp')]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
Core.add_implicit_resolver('tag:yaml.org,2002:bool', re.compile(r'^(?:true|True|TRUE|false|False|FALSE)$'), list('tTfF'))
Core.add_implicit_resolver('tag:yaml.org,2002:int', re.compile(r'^(?:[-+]?[1-9][0-9]*|[-+]?0|0x[0-9a-fA-F]+|0o[0-7]+)$'), list('-+0123456789'))
Core.add_implicit_resolver('tag:yaml.org,2002:float', re.compile(r'^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$'), list('-+.0123456789'))
out = []
for doc in json.load(sys.stdin):
    try:
        out.append(["ok", yaml.load(doc, Loader=Core)])
    except yaml.YAMLError as e:
        out.append(["error", str(e).splitlines()[0]])
print(json.dumps(out))
"#;

const CASES: &[&str] = &[
    "name: a\ndescription: b\n",
    "a: |\n  x\n  y\nb: 1\n",
    "a: |-\n  x\n  y\n\n\nb: 1\n",
    "a: |+\n  x\n  y\n\n\nb: 1\n",
    "a: >\n  x\n  y\n\n  z\n   more\n  back\n\n\nb: 1\n",
    "a: >-\n  x\n  y\n",
    "a: >+\n  x\n  y\n\n",
    "a: |+\n\n\nb: 2\n",
    "a: |\n",
    "a: >2\n   indented\n  normal\n",
    "a: |2-\n    two extra\n  x\n",
    "a:\n  - x\n  - y: 1\n    z: 2\n  - - n1\n    - n2\n  -\n    deep: true\n",
    "a:\n- x\n- y\nb: c\n",
    "a: [x, \"y\", 'z', {k: v, m: [1, 2]}, 3.5, ~, null, true, 0x1F, 0o17, 1e3]\n",
    "a: { x: 1, y: \"two\", z: [a, b] }\n",
    "a: [\n  one,\n  two three,\n  # comment\n  four\n]\n",
    "description: \"Quote \\\"in\\\" \\\\ \\n \\t \\u00e9 \\x41\"\n",
    "description: 'It''s fine'\n",
    "description: \"multi\n  line\n\n  quoted  \n  end\"\n",
    "description: 'single\n  multi\n\n  end'\n",
    "description: plain\n  continued\n  more\n\n  after blank\nname: x\n",
    "description: plain # comment\nname: x # another\n",
    "# leading comment\nname: x\n   # indented comment\ndescription: y\n",
    "metadata:\n  author: me\n  version: \"1.0\"\n  nested:\n    deep: 1\n",
    "name:\ndescription: x\n",
    "version: 1.0\nv2: 1.0.0\nv4: +12\nv5: -3.5e-2\nv6: .5\nv7: \"1\"\nv8: 1_000\nv9: 0b101\n",
    "\"quoted key\": 1\n'single key': 2\n",
    "a: \"x\" # comment\nb: [1, 2] # comment\n",
    "url: http://example.com:8080/path\ntime: 12:30\n",
    "a: b:c\n",
    "a: \"\\\n  joined\\\n  text\"\n",
    "a: >\n x\n\n y\n",
    "a: [a: 1, b]\n",
    "a: {x, y: }\n",
    "a: ''\nb: \"\"\n",
    "a: [ ]\nb: { }\n",
    "a: >\n\n  text\n",
    "a: |\n  text\n \n  after space line\n",
    "a:\n  b:\n    c:\n      d: e\nf: g\n",
    "a:\n  - x\n  # comment between\n  - y\n",
    "seq:\n  - name: a\n    items:\n      - 1\n      - 2\n  - name: b\n",
    "a: >-\n  folded\n    more indented\n  back\n",
    "a: |\n  tabs\tinside\n",
    "a: [a, [b, [c, [d]]]]\n",
    "a: {\"quoted\": 1, 'single': [x]}\n",
    "a: >\n  one\n\n  two\n\n\n  three\n",
    "a: |1\n  two spaces\n",
    "allowed-tools:\n  - Read\n  - Grep\n",
    "a: x #comment\nb: x#notcomment\nc: 'q' #c\n",
    "a: |  # header comment\n  text\n",
    "a: >\n  para one\n  continues\n\n    code block\n    code line 2\n\n  para two\n",
    "a:\n\n  value after blank\n",
    "a:\nb:\n  - \n  - x\n",
];

fn corpus_frontmatters() -> Vec<String> {
    // The repository's copies of real skills (`tests/corpora`, with their licences).
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpora");
    let mut found = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot read {} (the corpora): {e}", dir.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "SKILL.md") {
                let text = std::fs::read_to_string(&path).unwrap();
                let inner = text
                    .split_once("\n---\n")
                    .unwrap()
                    .0
                    .strip_prefix("---\n")
                    .unwrap();
                found.push(format!("{inner}\n"));
            }
        }
    }
    assert!(
        found.len() >= 20,
        "expected the corpora under {}",
        root.display()
    );
    found
}

#[test]
fn our_parser_reads_frontmatter_as_pyyaml_does() {
    if !skillful_test_support::python_imports("yaml", "pip install pyyaml") {
        return;
    }
    let mut documents: Vec<String> = CASES.iter().map(|c| (*c).to_owned()).collect();
    documents.extend(corpus_frontmatters());
    let mut child = Command::new("python3")
        .args(["-c", PYYAML])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 is needed for the differential test");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&documents).unwrap().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "PyYAML failed (is it installed? `pip install pyyaml`)"
    );
    let theirs: Vec<(String, serde_json::Value)> = serde_json::from_slice(&output.stdout).unwrap();
    for (document, (status, expected)) in documents.iter().zip(theirs) {
        assert_eq!(status, "ok", "PyYAML rejected {document:?}: {expected}");
        let text = format!("---\n{document}---\n");
        let ours = parse(&text, &ParseOptions::default())
            .unwrap_or_else(|e| panic!("we rejected {document:?}: {e}"));
        let ours = serde_json::to_value(ours.fields()).unwrap();
        assert_eq!(ours, expected, "different readings of {document:?}");
    }
}
