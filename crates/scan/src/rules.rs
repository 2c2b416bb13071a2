//! The rules: what each looks for, and the checks of one file's text.

use std::sync::LazyLock;

use regex::Regex;
use unicode_general_category::{GeneralCategory, get_general_category};

use crate::class::FileClass;
use crate::context::{self, Governs};
use crate::normalize::{Line, Normalized};
use crate::pattern::regex;
use crate::{Finding, Severity};

/// One rule of the scanner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// The stable identifier (`SKL001`): SARIF's `ruleId`, and what a suppression names.
    pub id: &'static str,
    /// A short kebab-case name.
    pub name: &'static str,
    /// The severity of a finding, unless the rule says a kind of file lowers it.
    pub severity: Severity,
    /// What the rule finds, in one sentence.
    pub summary: &'static str,
    /// What to do about a finding.
    pub help: &'static str,
}

macro_rules! rules {
    ($($konst:ident = $id:literal $name:literal $severity:ident $summary:literal $help:literal;)*) => {
        $(
            #[doc = $summary]
            pub(crate) const $konst: Rule = Rule {
                id: $id,
                name: $name,
                severity: Severity::$severity,
                summary: $summary,
                help: $help,
            };
        )*
        /// Every rule, in identifier order.
        pub const RULES: &[Rule] = &[$($konst),*];
    };
}

rules! {
    TAG_CHARACTERS = "SKL001" "unicode-tag-characters" Critical
        "Unicode tag characters (U+E0000 to U+E007F): text a model reads and a person cannot see."
        "Remove the characters; a skill has no use for them.";
    BIDI_CONTROLS = "SKL002" "unicode-bidi-controls" High
        "Bidirectional overrides, embeddings or isolates (U+202A to U+202E, U+2066 to U+2069), which make text read differently from how it shows."
        "Remove the characters, or write the right-to-left text without overrides.";
    INVISIBLE_FORMAT = "SKL003" "unicode-invisible-format" Medium
        "Invisible format characters (general category Cf, such as zero-width spaces) outside the places they belong (a byte order mark first in a file, a joiner inside an emoji)."
        "Remove the characters.";
    OVERRIDE_INSTRUCTIONS = "SKL010" "prompt-override-instructions" High
        "Text telling the model to ignore or override the instructions it was given."
        "Remove the instruction; a skill adds to the user's instructions, it does not replace them.";
    CONCEAL_FROM_USER = "SKL011" "prompt-conceal-from-user" High
        "Text telling the model to keep something from the user (\"do not tell the user\", \"without telling the user\")."
        "Remove the instruction; what a skill does must be visible to the user.";
    ACT_WITHOUT_ASKING = "SKL012" "prompt-act-without-asking" Medium
        "Text telling the model to act without asking the user or without the user's consent."
        "Say what the skill does and let the host's approval policy decide.";
    IMAGE_EXFILTRATION = "SKL020" "markdown-image-exfiltration" High
        "A Markdown or HTML image whose URL holds a placeholder for data (\"{{...}}\", \"${...}\", \"{name}\", \"<data>\", \"$VAR\"): rendering it sends the data away."
        "Use a fixed image URL, or none.";
    LINK_EXFILTRATION = "SKL021" "markdown-link-exfiltration" Medium
        "A Markdown link whose query string holds a placeholder for data."
        "Use a fixed link, or let the user fill in the query.";
    PIPE_TO_SHELL = "SKL030" "download-piped-to-shell" High
        "A download piped straight into an interpreter (\"curl ... | sh\", \"wget -O- | bash\", \"iex (iwr ...)\"); medium in documents, high in scripts."
        "Download to a file, check its digest, then run it; or ship the script in the skill.";
    DECODE_AND_EXECUTE = "SKL031" "decode-and-execute" High
        "Encoded text decoded and executed (\"base64 -d | sh\", \"eval(atob(...))\", \"exec(...decode(...))\"): code nobody can read before it runs."
        "Ship the code as readable source.";
    CREDENTIAL_READ = "SKL040" "credential-store-read" High
        "A path of a credential store (~/.ssh, ~/.aws/credentials, .netrc, browser profiles, /etc/shadow; reading .env is medium); medium in documents, high in scripts."
        "Do not read credentials in a skill; let the user pass what is needed explicitly.";
    UNDECLARED_NETWORK = "SKL050" "network-under-read-risk" High
        "A script opens network connections while the skill or the script declares `risk: read`."
        "Declare the script's real tier (write-low or above), or remove the network calls.";
    UNDECLARED_SCRIPTS = "SKL051" "scripts-not-described" Info
        "The skill ships scripts, but its description mentions no script, command or tool: a remark on the description (info), since the scripts themselves are read by every other rule."
        "Say in the description that the skill runs scripts, and what they do.";
    UNSAFE_FILES = "SKL060" "unsafe-skill-files" High
        "The skill's files cannot be read safely: a symbolic link leaving the skill, a special file, an unsafe file name, or over the size limits."
        "Remove the offending entry named in the message.";
    NOT_TEXT = "SKL061" "file-not-text" Low
        "A file that is not UTF-8 text, which the scanner cannot read as the model would; medium for a script or a document, which are scanned as far as they read; a remark (info) when its first bytes show it is what its name says: an image, a font, a PDF, audio or video, or macOS metadata (AppleDouble `._NAME`)."
        "Save scripts and documents as UTF-8; ship binary files only where the skill needs them.";
    ARCHIVE_NOT_INSPECTED = "SKL062" "archive-not-inspected" Medium
        "A bundled archive (zip, tar, tar.gz) the scanner could not look into completely: over a bound (1,000 members, 4 MiB a member, 64 MiB in all, archives nested two deep) or unreadable; what it did read is scanned."
        "Ship the files unpacked, or a smaller archive.";
    SUPPRESSION_INVALID = "SKL070" "suppression-not-honoured" Low
        "An inline suppression (`skills-scan: allow RULE-ID reason=...`) that suppresses nothing: it gives no reason, names no rule, is malformed, or aims at a high or critical finding, which a skill cannot suppress."
        "Give the rule's id and a reason; accept a high or critical finding in a baseline (`skills scan --write-baseline`), not inside the skill.";
}

/// A binary format told by its first bytes.
struct Format {
    /// The extensions that name it, lowercase.
    extensions: &'static [&'static str],
    /// What it is, as a message says it.
    kind: &'static str,
    /// The bytes a file of it holds, each at its offset.
    magic: &'static [(usize, &'static [u8])],
}

/// The media formats a skill ships for a person or a program, never for the model to read.
const KNOWN_BINARIES: &[Format] = &[
    Format {
        extensions: &["png"],
        kind: "a PNG image",
        magic: &[(0, b"\x89PNG\r\n\x1a\n")],
    },
    Format {
        extensions: &["jpg", "jpeg"],
        kind: "a JPEG image",
        magic: &[(0, b"\xff\xd8\xff")],
    },
    Format {
        extensions: &["gif"],
        kind: "a GIF image",
        magic: &[(0, b"GIF8")],
    },
    Format {
        extensions: &["webp"],
        kind: "a WebP image",
        magic: &[(0, b"RIFF"), (8, b"WEBP")],
    },
    Format {
        extensions: &["ico"],
        kind: "an icon",
        magic: &[(0, b"\x00\x00\x01\x00")],
    },
    Format {
        extensions: &["ttf"],
        kind: "a TrueType font",
        magic: &[(0, b"\x00\x01\x00\x00")],
    },
    Format {
        extensions: &["ttf", "otf"],
        kind: "an OpenType font",
        magic: &[(0, b"OTTO")],
    },
    Format {
        extensions: &["ttc"],
        kind: "a font collection",
        magic: &[(0, b"ttcf")],
    },
    Format {
        extensions: &["woff"],
        kind: "a WOFF font",
        magic: &[(0, b"wOFF")],
    },
    Format {
        extensions: &["woff2"],
        kind: "a WOFF2 font",
        magic: &[(0, b"wOF2")],
    },
    Format {
        extensions: &["pdf"],
        kind: "a PDF",
        magic: &[(0, b"%PDF-")],
    },
    Format {
        extensions: &["mp3"],
        kind: "an MP3 audio file",
        magic: &[(0, b"ID3")],
    },
    Format {
        extensions: &["wav"],
        kind: "a WAVE audio file",
        magic: &[(0, b"RIFF"), (8, b"WAVE")],
    },
    Format {
        extensions: &["ogg", "oga"],
        kind: "an Ogg audio file",
        magic: &[(0, b"OggS")],
    },
    Format {
        extensions: &["mp4", "m4a", "mov"],
        kind: "a video",
        magic: &[(4, b"ftyp")],
    },
    Format {
        extensions: &["webm", "mkv"],
        kind: "a video",
        magic: &[(0, b"\x1a\x45\xdf\xa3")],
    },
];

/// What the file `relative` (a skill-relative path, or an archive member's `a.zip!inner/path`)
/// holding `bytes` is, when its first bytes show it is what its name says: media the model never
/// reads as text, or the macOS metadata (AppleDouble) stored as `._NAME` beside a file or under
/// `__MACOSX/` in a zip. `None` for anything else, an executable or a file whose bytes and name
/// disagree (an ELF program named `logo.png`).
pub(crate) fn known_binary(relative: &str, bytes: &[u8]) -> Option<&'static str> {
    let name = relative.rsplit(['/', '!']).next().unwrap_or(relative);
    let holds = |magic: &[(usize, &[u8])]| {
        magic
            .iter()
            .all(|(at, expected)| bytes.get(*at..at + expected.len()) == Some(*expected))
    };
    if name.starts_with("._") && holds(&[(0, b"\x00\x05\x16\x07")]) {
        return Some("macOS metadata (AppleDouble)");
    }
    let extension = name.rsplit_once('.')?.1.to_ascii_lowercase();
    KNOWN_BINARIES
        .iter()
        .find(|format| format.extensions.contains(&extension.as_str()) && holds(format.magic))
        .map(|format| format.kind)
}

/// Where findings of one file go.
pub(crate) struct FileScan<'a> {
    /// The file's path as findings name it.
    pub(crate) file: &'a str,
    /// The file's path inside its skill (or its name, scanned alone), for fingerprints.
    pub(crate) relative: &'a str,
    /// The skill the file belongs to, if any.
    pub(crate) skill: Option<&'a str>,
    /// The file's kind.
    pub(crate) class: FileClass,
    /// Whether the script's declared tier is `read` (the network rule applies).
    pub(crate) read_only: bool,
    /// The findings.
    pub(crate) findings: &'a mut Vec<Finding>,
}

impl FileScan<'_> {
    /// A finding at `(line, column)` of `matched`, the text its fingerprint is made of.
    pub(crate) fn push(
        &mut self,
        rule: &Rule,
        severity: Severity,
        (line, column): (usize, usize),
        matched: &str,
        message: String,
    ) {
        self.findings.push(Finding {
            rule_id: rule.id,
            rule_name: rule.name,
            severity,
            message,
            file: self.file.to_owned(),
            line,
            column,
            skill: self.skill.map(str::to_owned),
            fingerprint: crate::fingerprint(rule.id, self.skill, self.relative, matched),
            suppressed: None,
        });
    }

    /// A finding of the match `found` of the normalised `line`.
    fn push_found(
        &mut self,
        rule: &Rule,
        severity: Severity,
        line: &Line<'_>,
        found: &regex::Match<'_>,
        message: String,
    ) {
        self.push(
            rule,
            severity,
            line.place(found.start()),
            found.as_str(),
            message,
        );
    }

    /// A document's findings are `lowered` there; a script's keep the rule's severity.
    fn script_severity(&self, rule: &Rule, lowered: Severity) -> Severity {
        if self.class == FileClass::Script {
            rule.severity
        } else {
            lowered
        }
    }
}

/// Runs every rule that applies to the file's class over `text`: the Unicode and link rules
/// over its lines as they are, the pattern rules over its lines as a reader takes them
/// ([`Normalized`]).
pub(crate) fn check_text(text: &str, scan: &mut FileScan<'_>) {
    let unicode = !text.is_ascii();
    let urls = scan.class == FileClass::Document
        && (text.contains("](") || text.to_ascii_lowercase().contains("<img"));
    if unicode || urls {
        for (index, line) in text.lines().enumerate() {
            if unicode {
                check_unicode(line, index + 1, scan);
            }
            if urls {
                check_urls(line, index + 1, scan);
            }
        }
    }
    if scan.class == FileClass::Other {
        return;
    }
    let normalized = Normalized::of(text, scan.class);
    let read = normalized.text();
    // Each group's patterns run over the whole text first (one pass of the regex engine); only
    // a text they match is looked at line by line, for the exact places.
    let any = |patterns: &[&Regex]| patterns.iter().any(|pattern| pattern.is_match(read));
    let prompt = scan.class == FileClass::Document && any(&[&OVERRIDE, &CONCEAL, &WITHOUT_ASKING]);
    let commands = PIPE_SHELL
        .iter()
        .chain(DECODE_EXEC.iter())
        .any(|p| p.is_match(read))
        || any(&[&CREDENTIALS, &DOTENV]);
    let network = scan.class == FileClass::Script && scan.read_only && NETWORK.is_match(read);
    if !(prompt || commands || network) {
        return;
    }
    for line in normalized.lines() {
        if prompt {
            check_prompt(&line, scan);
        }
        if commands {
            check_commands(&line, scan);
        }
        if network {
            check_network(&line, scan);
        }
    }
}

fn is_emoji(c: char) -> bool {
    matches!(c, '\u{1F000}'..='\u{1FAFF}' | '\u{2600}'..='\u{27BF}')
}

/// The Unicode rules: at most one finding per rule and line, at its first character.
fn check_unicode(line: &str, number: usize, scan: &mut FileScan<'_>) {
    if line.is_ascii() {
        return;
    }
    let chars: Vec<char> = line.chars().collect();
    let mut tags = (0usize, String::new(), 0usize);
    let mut bidi = (0usize, 0usize, '\0');
    let mut invisible = (0usize, 0usize, '\0');
    for (index, &c) in chars.iter().enumerate() {
        let column = index + 1;
        if ('\u{E0000}'..='\u{E007F}').contains(&c) {
            if tags.0 == 0 {
                tags.2 = column;
            }
            tags.0 += 1;
            if let Some(ascii) = char::from_u32(u32::from(c) - 0xE0000)
                && (' '..='~').contains(&ascii)
                && tags.1.len() < 80
            {
                tags.1.push(ascii);
            }
        } else if matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}') {
            if bidi.0 == 0 {
                bidi = (0, column, c);
            }
            bidi.0 += 1;
        } else if get_general_category(c) == GeneralCategory::Format {
            let bom_first = c == '\u{FEFF}' && number == 1 && index == 0;
            let emoji_joiner = c == '\u{200D}'
                && index > 0
                && chars.get(index + 1).is_some_and(|&next| is_emoji(next))
                && (is_emoji(chars[index - 1]) || chars[index - 1] == '\u{FE0F}');
            if bom_first || emoji_joiner {
                continue;
            }
            if invisible.0 == 0 {
                invisible = (0, column, c);
            }
            invisible.0 += 1;
        }
    }
    if tags.0 > 0 {
        let decoded = skillful_core::text::one_line(&tags.1).into_owned();
        scan.push(
            &TAG_CHARACTERS,
            TAG_CHARACTERS.severity,
            (number, tags.2),
            line,
            format!("{} Unicode tag characters, reading {decoded:?}", tags.0),
        );
    }
    if bidi.0 > 0 {
        scan.push(
            &BIDI_CONTROLS,
            BIDI_CONTROLS.severity,
            (number, bidi.1),
            line,
            format!(
                "{} bidirectional control characters, the first U+{:04X}",
                bidi.0,
                u32::from(bidi.2)
            ),
        );
    }
    if invisible.0 > 0 {
        scan.push(
            &INVISIBLE_FORMAT,
            INVISIBLE_FORMAT.severity,
            (number, invisible.1),
            line,
            format!(
                "{} invisible format characters, the first U+{:04X}",
                invisible.0,
                u32::from(invisible.2)
            ),
        );
    }
}

static OVERRIDE: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(ignore|disregard|forget|override)\s+(all\s+|any\s+)?(of\s+)?(the\s+|your\s+|my\s+|these\s+)?(previous|prior|above|earlier|preceding|original|system|user'?s?)\s+(instructions|prompts?|rules|directions|guidelines|messages)\b",
    )
});
static CONCEAL: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b((do\s+not|don'?t|never)\s+(tell|inform|notify|alert|(mention|reveal|disclose)\s+(this|it|that|anything)\s+to)\s+the\s+user|without\s+(telling|informing|notifying|alerting)\s+the\s+user|(hide|conceal)\s+(this|it|that|these|them)\s+from\s+the\s+user|(keep|make)\s+(this|it|that)\s+(secret|hidden)\s+from\s+the\s+user)\b",
    )
});
static WITHOUT_ASKING: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\bwithout\s+(first\s+)?(asking(\s+the\s+user)?|asking\s+for\s+(permission|confirmation|consent)|(the\s+)?user'?s?\s+(consent|permission|approval|knowledge)|(any\s+)?(confirmation|permission|consent))\b",
    )
});

/// Prompt-injection phrases in documents: the first match of each rule that its sentence
/// neither forbids nor quotes as something to refuse ([`context`]).
fn check_prompt(line: &Line<'_>, scan: &mut FileScan<'_>) {
    let framed = |found: &regex::Match<'_>, governs| {
        context::negated(line.text, found.start(), governs)
            || context::quoted_for_refusal(line.text, found.start(), found.end())
    };
    let governs = |found: &regex::Match<'_>| {
        if found.as_str().to_ascii_lowercase().starts_with("without") {
            Governs::Action
        } else {
            Governs::Verb
        }
    };
    if let Some(found) = OVERRIDE
        .find_iter(line.text)
        .find(|found| !framed(found, Governs::Verb))
    {
        let message = format!("\"{}\"", excerpt(found.as_str()));
        scan.push_found(
            &OVERRIDE_INSTRUCTIONS,
            OVERRIDE_INSTRUCTIONS.severity,
            line,
            &found,
            message,
        );
    }
    // "do not tell the user to run it" gives the model advice on wording, hiding nothing.
    let advice = |found: &regex::Match<'_>| {
        let rest = line.text[found.end()..].trim_start().to_ascii_lowercase();
        ["to ", "how ", "that you ", "what to "]
            .iter()
            .any(|word| rest.starts_with(word))
    };
    if let Some(found) = CONCEAL
        .find_iter(line.text)
        .find(|found| !advice(found) && !framed(found, governs(found)))
    {
        let message = format!("\"{}\"", excerpt(found.as_str()));
        scan.push_found(
            &CONCEAL_FROM_USER,
            CONCEAL_FROM_USER.severity,
            line,
            &found,
            message,
        );
    }
    if let Some(found) = WITHOUT_ASKING.find_iter(line.text).find(|found| {
        !framed(found, Governs::Action)
            && !context::defers_to_user(line.text, found.start(), found.end())
    }) {
        let message = format!("\"{}\"", excerpt(found.as_str()));
        scan.push_found(
            &ACT_WITHOUT_ASKING,
            ACT_WITHOUT_ASKING.severity,
            line,
            &found,
            message,
        );
    }
}

static IMAGE: LazyLock<Regex> = LazyLock::new(|| {
    regex(r#"(?i)!\[[^\]]*\]\(\s*(<[^>\s]+>|[^)\s]+)|<img\b[^>]*?\bsrc\s*=\s*["']?([^"'\s>]+)"#)
});
static LINK: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?:^|[^!\]])\[[^\]]*\]\(\s*(<[^>\s]+>|[^)\s]+)"));
static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"\{\{[^}]*\}\}|\$\{[^}]*\}|\{[A-Za-z_][A-Za-z0-9_.]*\}|<[A-Za-z_][A-Za-z0-9_ -]*>|%3C[A-Za-z_][A-Za-z0-9_]*%3E|\$[A-Z_][A-Z0-9_]+|\[[A-Z][A-Z_]{2,}\]",
    )
});

/// A Markdown link destination without the angle brackets that may enclose it.
fn destination(url: &str) -> &str {
    url.strip_prefix('<')
        .and_then(|inner| inner.strip_suffix('>'))
        .unwrap_or(url)
}

fn is_remote(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("//")
}

/// Images and links whose URL carries data out.
fn check_urls(line: &str, number: usize, scan: &mut FileScan<'_>) {
    if !line.contains("](") && !line.to_ascii_lowercase().contains("<img") {
        return;
    }
    for captures in IMAGE.captures_iter(line) {
        let Some(url) = captures.get(1).or_else(|| captures.get(2)) else {
            continue;
        };
        let target = destination(url.as_str());
        if is_remote(target)
            && let Some(placeholder) = PLACEHOLDER.find(target)
        {
            let message = format!(
                "image URL {} carries the placeholder {}",
                excerpt(target),
                excerpt(placeholder.as_str())
            );
            scan.push(
                &IMAGE_EXFILTRATION,
                IMAGE_EXFILTRATION.severity,
                (number, column(line, url.start())),
                target,
                message,
            );
        }
    }
    for captures in LINK.captures_iter(line) {
        let Some(url) = captures.get(1) else { continue };
        let target = destination(url.as_str());
        let Some((_, query)) = target.split_once('?') else {
            continue;
        };
        if is_remote(target)
            && let Some(placeholder) = PLACEHOLDER.find(query)
        {
            let message = format!(
                "link URL {} carries the placeholder {} in its query",
                excerpt(target),
                excerpt(placeholder.as_str())
            );
            scan.push(
                &LINK_EXFILTRATION,
                LINK_EXFILTRATION.severity,
                (number, column(line, url.start())),
                target,
                message,
            );
        }
    }
}

static PIPE_SHELL: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"(?i)\b(curl|wget|fetch)\b[^|\n]*\|\s*(sudo\s+(-\S+\s+)*)?(sh|bash|zsh|ksh|dash|fish|python[0-9.]*|perl|ruby|node)\b",
        r"(?i)\b(ba|z|k)?sh\s+(-c\s+)?[\x22']?\$\(\s*(curl|wget)\b",
        r"(?i)\b(ba|z|k)?sh\s+<\(\s*(curl|wget)\b",
        r"(?i)\b(iex|invoke-expression)\b\s*\(?\s*\(?\s*(iwr|irm|invoke-webrequest|invoke-restmethod|new-object\s+(system\.)?net\.webclient)\b",
        r"(?i)\b(iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|\n]*\|\s*(iex|invoke-expression)\b",
    ]
    .into_iter()
    .map(regex)
    .collect()
});
static DECODE_EXEC: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"(?i)\bbase64\s+(-d|--decode|-D)\b[^|\n]*\|\s*(sudo\s+)?(sh|bash|zsh|ksh|dash|python[0-9.]*|perl)\b",
        r"(?i)\b(eval|exec)\s*\([^\n]*\b(b64decode|base64_decode|atob|frombase64string|decodebytes|a85decode|b32decode|unhexlify|zlib\.decompress|marshal\.loads)\b",
        r"(?i)\b(eval|exec)\s*\([^\n]*\bbuffer\.from\([^\n]*['\x22](base64|hex)['\x22]",
        r"(?i)\bfrombase64string\b[^\n]*\|\s*(iex|invoke-expression)\b",
        r"(?i)\b(iex|invoke-expression)\b[^\n]*\bfrombase64string\b",
    ]
    .into_iter()
    .map(regex)
    .collect()
});
static CREDENTIALS: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)(~|\$HOME|\$\{HOME\}|%USERPROFILE%|expanduser\(\s*['\x22]~)[/\\]?\.ssh\b|\.ssh[/\\]id_(rsa|ed25519|ecdsa|dsa)\b|\.ssh[/\\]authorized_keys\b|\.aws[/\\]credentials\b|/etc/shadow\b|\.netrc\b|\.git-credentials\b|\.docker[/\\]config\.json\b|\.kube[/\\]config\b|\.gnupg\b|\.mozilla[/\\]firefox\b|\b(google[/\\]chrome|google-chrome|chromium|bravesoftware)[/\\][^\n]*(login data|cookies|local state)\b|\blogins\.json\b|\bkey4\.db\b|\blogin keychain\b|keychain-db\b",
    )
});
static DOTENV: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r#"(?i)\b(cat|less|more|head|tail|source|open|read_text|readfile(sync)?|fopen|file_get_contents|get-content)\b\s*\(?\s*["'`]?([\w./~$-]*/)?\.env(["'`\s),]|$)"#,
    )
});

/// The first match of any of `patterns` in `line` that counts: in a script every match, in a
/// document one that its sentence neither forbids ("never run `curl … | sh`") nor quotes as
/// something to refuse ([`context`]).
fn first_counted<'t>(
    patterns: &[&Regex],
    line: &Line<'t>,
    class: FileClass,
) -> Option<regex::Match<'t>> {
    patterns.iter().find_map(|pattern| {
        pattern.find_iter(line.text).find(|found| {
            class != FileClass::Document
                || !(context::negated(line.text, found.start(), Governs::Action)
                    || context::quoted_for_refusal(line.text, found.start(), found.end()))
        })
    })
}

/// Downloads run unseen, encoded code run, credential stores read.
fn check_commands(line: &Line<'_>, scan: &mut FileScan<'_>) {
    let pipe_shell: Vec<&Regex> = PIPE_SHELL.iter().collect();
    if let Some(found) = first_counted(&pipe_shell, line, scan.class) {
        let severity = scan.script_severity(&PIPE_TO_SHELL, Severity::Medium);
        let message = format!("\"{}\"", excerpt(found.as_str()));
        scan.push_found(&PIPE_TO_SHELL, severity, line, &found, message);
    }
    let decode_exec: Vec<&Regex> = DECODE_EXEC.iter().collect();
    if let Some(found) = first_counted(&decode_exec, line, scan.class) {
        let severity = scan.script_severity(&DECODE_AND_EXECUTE, Severity::Medium);
        let message = format!("\"{}\"", excerpt(found.as_str()));
        scan.push_found(&DECODE_AND_EXECUTE, severity, line, &found, message);
    }
    if let Some(found) = first_counted(&[&CREDENTIALS], line, scan.class) {
        let severity = scan.script_severity(&CREDENTIAL_READ, Severity::Medium);
        let message = format!("names the credential store \"{}\"", excerpt(found.as_str()));
        scan.push_found(&CREDENTIAL_READ, severity, line, &found, message);
    } else if let Some(found) = first_counted(&[&DOTENV], line, scan.class) {
        let message = format!("reads a .env file: \"{}\"", excerpt(found.as_str()));
        scan.push_found(&CREDENTIAL_READ, Severity::Medium, line, &found, message);
    }
}

static NETWORK: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?im)\b(requests\.(get|post|put|delete|patch|head|request|session)\b|urllib\.request\b|urllib3\b|http\.client\b|httpx\.|aiohttp\b|socket\.(socket|create_connection)\b|fetch\s*\(|axios\b|xmlhttprequest\b|net\.connect\b|https?\.(request|get)\s*\(|invoke-webrequest\b|invoke-restmethod\b|net\.webclient\b|(^|[\s;|&(])(curl|wget|nc|ncat|ssh|scp|rsync|ftp|telnet)\s)",
    )
});

/// Network calls in a script that declares `risk: read`.
fn check_network(line: &Line<'_>, scan: &mut FileScan<'_>) {
    if let Some(found) = NETWORK.find(line.text) {
        let message = format!(
            "opens a network connection (\"{}\") under risk: read",
            excerpt(found.as_str().trim())
        );
        scan.push_found(
            &UNDECLARED_NETWORK,
            UNDECLARED_NETWORK.severity,
            line,
            &found,
            message,
        );
    }
}

static MENTIONS_SCRIPTS: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(scripts?|run|runs|running|execut\w*|commands?|cli|tools?|automat\w*|python|bash|shell|programs?|code|invoke\w*|call\w*|helper)\b",
    )
});

/// Whether a description says the skill runs something.
pub(crate) fn description_mentions_scripts(description: &str) -> bool {
    MENTIONS_SCRIPTS.is_match(description)
}

/// The 1-based column, in characters, of the byte offset `at` of `line`.
fn column(line: &str, at: usize) -> usize {
    line[..at].chars().count() + 1
}

/// Untrusted text as a message shows it: one line, at most 80 characters.
pub(crate) fn excerpt(text: &str) -> String {
    skillful_core::text::one_line(&skillful_core::text::shorten(text, 80)).into_owned()
}
