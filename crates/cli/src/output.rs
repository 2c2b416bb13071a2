//! The terminal writer: the one way text reaches stdout and stderr.
//!
//! Everything the command prints goes through a [`Writer`] (or, for the libraries' warnings, the
//! tracing subscriber set up by [`init_tracing`]), which escapes every control character,
//! bidirectional override and invisible character it is given with
//! [`skillful_core::text::for_terminal`] before it is written: text from skills, scripts,
//! servers and models cannot move the cursor, clear the screen or retitle the window, whatever
//! the call site forgets. Call sites still pass names and other one-line values through
//! [`skillful_core::text::one_line`], so that a value cannot start a line of its own (and pass
//! for one of our prompts). `print!`, `eprintln!` and friends, and `std::io::stdout`/`stderr`,
//! are denied everywhere else in the crate by clippy (`print_stdout`, `print_stderr`,
//! `disallowed_methods` in the workspace's `clippy.toml`).

// The one place allowed to touch the process's standard streams.
#![allow(clippy::disallowed_methods)]

use std::fmt;
use std::io::{self, IsTerminal, Write};

use serde::Serialize;
use skillful_core::Diagnostic;
use skillful_core::text::{for_terminal, is_hazard, one_line};
use tracing_subscriber::Layer as _;
use tracing_subscriber::Registry;
use tracing_subscriber::field::MakeExt;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// Text written to a stream, escaped on the way. `write!`/`writeln!` work on it as on an
/// [`io::Write`], through [`Writer::write_fmt`].
pub(crate) struct Writer<W> {
    inner: W,
    /// Whether [`Writer::tone`] colours (`--color`, and whether the stream is a terminal).
    color: bool,
}

/// The writer of standard output (locked while it lives).
pub(crate) fn stdout() -> Writer<io::StdoutLock<'static>> {
    Writer {
        inner: io::stdout().lock(),
        color: colours(io::stdout().is_terminal()),
    }
}

/// The writer of standard error (locked while it lives).
pub(crate) fn stderr() -> Writer<io::StderrLock<'static>> {
    Writer {
        inner: io::stderr().lock(),
        color: colours(io::stderr().is_terminal()),
    }
}

/// The writer of standard error when `to_stderr`, else of standard output: where questions go
/// when standard output is kept for one JSON object (`skills run --json`).
pub(crate) fn stdout_or_stderr(to_stderr: bool) -> Writer<Box<dyn Write>> {
    Writer {
        inner: if to_stderr {
            Box::new(io::stderr().lock())
        } else {
            Box::new(io::stdout().lock())
        },
        color: false,
    }
}

/// The engine's installation shown on standard error: each step a line, each download a bar
/// on a terminal (a line with its title elsewhere). Titles are escaped as everything else this
/// module writes.
#[derive(Debug, Default)]
pub(crate) struct TerminalProgress {
    bar: std::sync::Mutex<Option<indicatif::ProgressBar>>,
}

impl TerminalProgress {
    fn bar(&self) -> std::sync::MutexGuard<'_, Option<indicatif::ProgressBar>> {
        self.bar
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl skillful_engine::InstallProgress for TerminalProgress {
    fn step(&self, line: &str) {
        let _ = writeln!(stderr(), "{line}");
    }

    fn download_started(&self, title: &str, total: u64) {
        if !io::stderr().is_terminal() {
            self.step(title);
            return;
        }
        let style = indicatif::ProgressStyle::with_template(
            "{msg}\n{wide_bar} {bytes}/{total_bytes} {bytes_per_sec} {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::stderr(),
        )
        .with_style(style)
        .with_message(one_line(title).into_owned());
        *self.bar() = Some(bar);
    }

    fn downloaded(&self, bytes: u64) {
        if let Some(bar) = self.bar().as_ref() {
            bar.inc(bytes);
        }
    }

    fn download_finished(&self) {
        if let Some(bar) = self.bar().take() {
            bar.finish_and_clear();
        }
    }
}

impl<W: Write> Writer<W> {
    /// Writes formatted text with every control character (newline and tab excepted) escaped;
    /// what `write!` and `writeln!` call.
    ///
    /// # Errors
    /// When the stream cannot be written (a closed pipe).
    pub(crate) fn write_fmt(&mut self, args: fmt::Arguments<'_>) -> io::Result<()> {
        match args.as_str() {
            Some(text) => self.inner.write_all(for_terminal(text).as_bytes()),
            None => self
                .inner
                .write_all(for_terminal(&args.to_string()).as_bytes()),
        }
    }

    /// Writes `word` escaped as [`Writer::write_fmt`] does, in the colour of `tone` when this
    /// stream is coloured: the colour codes are ours, added around the escaped text, never
    /// taken from it.
    ///
    /// # Errors
    /// When the stream cannot be written.
    pub(crate) fn tone(&mut self, tone: Tone, word: &str) -> io::Result<()> {
        let word = for_terminal(word);
        if !self.color {
            return self.inner.write_all(word.as_bytes());
        }
        let style = tone.style();
        write!(
            self.inner,
            "{}{word}{}",
            style.render(),
            style.render_reset()
        )
    }

    /// Writes `diagnostic` as its one line (`PATH: SEVERITY: FIELD: MESSAGE`, as its
    /// `Display`), the severity coloured, and a newline.
    ///
    /// # Errors
    /// When the stream cannot be written.
    pub(crate) fn diagnostic(&mut self, diagnostic: &Diagnostic) -> io::Result<()> {
        if let Some(path) = &diagnostic.path {
            write!(self, "{}: ", one_line(&path.display().to_string()))?;
        }
        let tone = if diagnostic.is_error() {
            Tone::Bad
        } else {
            Tone::Warning
        };
        self.tone(tone, &diagnostic.severity.to_string())?;
        writeln!(
            self,
            ": {}: {}",
            one_line(&diagnostic.field),
            one_line(&diagnostic.message)
        )
    }

    /// Writes `value` as pretty JSON and a newline. serde_json escapes C0 controls inside
    /// strings; the characters it leaves raw that a terminal would act on or hide (DEL, C1,
    /// bidirectional overrides, invisible characters) become `\uXXXX` escapes, so the output
    /// is still the same JSON.
    ///
    /// # Errors
    /// When the stream cannot be written.
    pub(crate) fn json(&mut self, value: &impl Serialize) -> io::Result<()> {
        let text = serde_json::to_string_pretty(value)?;
        let mut shown = String::with_capacity(text.len() + 1);
        for c in text.chars() {
            if c != '\n' && is_hazard(c) {
                for unit in c.encode_utf16(&mut [0; 2]) {
                    shown.push_str(&format!("\\u{unit:04x}"));
                }
            } else {
                shown.push(c);
            }
        }
        shown.push('\n');
        self.inner.write_all(shown.as_bytes())
    }

    /// Flushes the stream (before reading an answer to a prompt).
    ///
    /// # Errors
    /// When the stream cannot be written.
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W> fmt::Debug for Writer<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Writer")
    }
}

/// How a word that says how things stand is coloured ([`Writer::tone`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    /// Wrong: an error, a high or critical finding, unsafe (red, bold).
    Bad,
    /// Worth a look: a warning, a medium finding (yellow).
    Warning,
    /// Minor: a low finding, a notice (cyan).
    Minor,
    /// As it should be (green).
    Good,
    /// Information only (dimmed).
    Info,
}

impl Tone {
    fn style(self) -> anstyle::Style {
        use anstyle::{AnsiColor, Style};
        match self {
            Tone::Bad => Style::new().fg_color(Some(AnsiColor::Red.into())).bold(),
            Tone::Warning => Style::new().fg_color(Some(AnsiColor::Yellow.into())),
            Tone::Minor => Style::new().fg_color(Some(AnsiColor::Cyan.into())),
            Tone::Good => Style::new().fg_color(Some(AnsiColor::Green.into())),
            Tone::Info => Style::new().dimmed(),
        }
    }
}

/// `--color`, set once by [`init_tracing`] (`auto` until then).
static COLOR: std::sync::Mutex<Option<ColorChoice>> = std::sync::Mutex::new(None);

/// Whether a stream is coloured: `--color always`, or `auto` on a `terminal` without
/// `NO_COLOR` set.
fn colours(terminal: bool) -> bool {
    let choice = COLOR
        .lock()
        .map_or(None, |choice| *choice)
        .unwrap_or(ColorChoice::Auto);
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

/// `--quiet`, set once by [`init_tracing`].
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether the command runs with `--quiet`: the warnings it prints itself are left out too.
pub(crate) fn quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// When the libraries' log lines and the severities of the report lines are coloured
/// (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// What the command's log lines show.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Logging {
    /// The command prints discovery's diagnostics itself, one line each: discovery's own log
    /// lines of them are left out, so that each warning is shown once.
    pub(crate) reports_discovery: bool,
    /// `--quiet`: errors only.
    pub(crate) quiet: bool,
    /// `--color`.
    pub(crate) color: ColorChoice,
}

/// The libraries' warnings (a skipped skill, a symbolic link refused) go to stderr; `RUST_LOG`
/// overrides the level. Every field value and the message are written through
/// [`one_line`] (a path named with `ESC[2J` is shown as `\u{1b}[2J`). Colour only on a
/// terminal, and never with `NO_COLOR` set. `otel`, when given, exports spans (its own filter:
/// `RUST_LOG` only governs the terminal), as `logging` says.
pub(crate) fn init_tracing(
    otel: Option<skillful_telemetry::TelemetryLayer<Registry>>,
    logging: Logging,
) {
    if let Ok(mut choice) = COLOR.lock() {
        *choice = Some(logging.color);
    }
    let colour = colours(io::stderr().is_terminal());
    QUIET.store(logging.quiet, std::sync::atomic::Ordering::Relaxed);
    // rmcp logs a failed connection itself; the one line the command prints says it all.
    let default = match logging {
        Logging { quiet: true, .. } => "error,rmcp=off",
        Logging {
            reports_discovery: true,
            ..
        } => "warn,rmcp=off,skillful_discovery=error",
        _ => "warn,rmcp=off",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let terminal = tracing_subscriber::fmt::layer()
        .with_writer(io::stderr)
        .fmt_fields(escaped_fields())
        .with_target(false)
        .without_time()
        .with_ansi(colour)
        .with_filter(filter);
    tracing_subscriber::registry()
        .with(otel)
        .with(terminal)
        .init();
}

/// The field formatter of [`init_tracing`]: `message` as it is, other fields as `name=value`,
/// every value escaped by [`one_line`].
fn escaped_fields() -> impl for<'w> tracing_subscriber::fmt::FormatFields<'w> + 'static {
    tracing_subscriber::fmt::format::debug_fn(
        |writer: &mut tracing_subscriber::fmt::format::Writer<'_>, field, value| {
            let value = format!("{value:?}");
            if field.name() == "message" {
                write!(writer, "{}", one_line(&value))
            } else {
                write!(writer, "{}={}", one_line(field.name()), one_line(&value))
            }
        },
    )
    .delimited(" ")
}
