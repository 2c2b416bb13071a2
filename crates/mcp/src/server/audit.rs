//! The audit of the server's skill calls (and its quota per client): every request that names
//! a skill (`resources/read` of one of its files or its archive, `skills/get`) is one record,
//! written before the answer goes back. Listings (`skills/list`, `resources/list`, the index) name no skill and are not
//! recorded.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use base64::Engine as _;
use rmcp::model::{ErrorData, ResourceContents, Skill};
use rmcp::service::{RequestContext, RoleServer};
use skillful_audit::{Actor, AuditEvent, AuditSettings, EventKind, SkillRef, sha256_hex};
use skillful_fs::blocking;

use super::target::Target;

/// The header a streamable HTTP client's `initialize` session is named by.
const SESSION_HEADER: &str = "mcp-session-id";

/// One answered request that named a skill.
pub(super) struct Call<'a> {
    /// The MCP method (`resources/read`, `skills/get`).
    pub(super) method: &'static str,
    /// The URI it asked for.
    pub(super) uri: &'a str,
    /// What it got, or the error it got.
    pub(super) outcome: Result<Answer<'a>, &'a ErrorData>,
    /// How long it took to answer.
    pub(super) duration: Duration,
}

/// What a request got.
pub(super) enum Answer<'a> {
    /// A file or an archive.
    Contents(&'a ResourceContents),
    /// A skill's final-form entry.
    Entry(&'a Skill),
}

impl Answer<'_> {
    /// The sha256 of the bytes sent: a file's or archive's (a blob's decoded bytes), or the
    /// entry's JSON as sent.
    fn digest(&self) -> String {
        match self {
            Answer::Contents(ResourceContents::TextResourceContents { text, .. }) => {
                sha256_hex(text.as_bytes())
            }
            Answer::Contents(ResourceContents::BlobResourceContents { blob, .. }) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(blob)
                    .unwrap_or_default();
                sha256_hex(&bytes)
            }
            Answer::Entry(entry) => json_sha256(entry),
            // Contents of a kind this server does not send.
            Answer::Contents(other) => json_sha256(other),
        }
    }
}

/// What the audit of one server needs: its settings, when it audits, and its clients' quota.
pub(super) struct Audit<'s> {
    /// Where and how records are written; `None` when the server does not audit.
    pub(super) settings: Option<&'s AuditSettings>,
    /// How many requests naming a skill one client is answered a minute.
    pub(super) per_minute: NonZeroU32,
    /// How many each client made in its current minute.
    pub(super) quota: &'s Quota,
}

impl Audit<'_> {
    /// Answers a request for `uri` by `method` with what `answer` gives, timing it and recording
    /// the outcome (`sent` views a success as the [`Answer`] audited, `skill` names the skill a
    /// skill's name and file path refer to) before it goes back.
    pub(super) async fn audited<T>(
        &self,
        call: (&'static str, &str),
        context: &RequestContext<RoleServer>,
        answer: impl Future<Output = Result<T, ErrorData>>,
        sent: impl for<'t> FnOnce(&'t T) -> Answer<'t>,
        skill: impl AsyncFnOnce(&str, Option<&str>) -> Option<(SkillRef, Option<String>)>,
    ) -> Result<T, ErrorData> {
        let (method, uri) = call;
        let names_skill = matches!(
            Target::parse(uri),
            Some(Target::File { .. } | Target::Archive(_))
        );
        if self.settings.is_some() && names_skill {
            let client = session(context).unwrap_or_default();
            let per_minute = self.per_minute;
            if let Err(wait) = self.quota.admit(&client, per_minute, Instant::now()) {
                tracing::warn!(session = %client, "a client asked for more than {per_minute} skills a minute; refused, not recorded");
                return Err(ErrorData::invalid_request(
                    format!(
                        "too many skill requests: this server answers (and records) at most {per_minute} a minute per session; try again in {} s",
                        wait.as_secs().max(1)
                    ),
                    None,
                ));
            }
        }
        let started = Instant::now();
        let outcome = answer.await;
        let call = Call {
            method,
            uri,
            outcome: outcome.as_ref().map(sent),
            duration: started.elapsed(),
        };
        self.record(call, context, skill).await;
        outcome
    }

    /// Records `call`, when the server audits (a failure to write is a warning).
    async fn record(
        &self,
        call: Call<'_>,
        context: &RequestContext<RoleServer>,
        skill: impl AsyncFnOnce(&str, Option<&str>) -> Option<(SkillRef, Option<String>)>,
    ) {
        let Some(settings) = self.settings else {
            return;
        };
        let (name, file) = match Target::parse(call.uri) {
            Some(Target::File { skill, file }) => (skill, Some(file)),
            Some(Target::Archive(name)) => (name, None),
            Some(Target::Index) | None => return,
        };
        let mut event = event(settings, &call, context);
        if let Some((skill, resource)) = skill(name, file).await {
            event.skill = Some(skill);
            if call.method == "resources/read" {
                event.resource = resource;
            }
        }
        let sink = std::sync::Arc::clone(&settings.sink);
        match blocking::run("writing an audit record", move || sink.record(event)).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::warn!("the audit record was not written: {error}"),
            Err(error) => tracing::warn!("the audit record was not written: {error}"),
        }
    }
}

/// The HTTP session (`Mcp-Session-Id`) a request came in, if any.
fn session(context: &RequestContext<RoleServer>) -> Option<String> {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.headers.get(SESSION_HEADER))
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}

/// How many audited requests each client made in its current minute.
#[derive(Debug, Default)]
pub(super) struct Quota {
    /// Per client: when its minute began and how many it was answered since.
    windows: Mutex<HashMap<String, (Instant, u32)>>,
}

/// Clients remembered at most before those whose minute is over are forgotten.
const MAX_REMEMBERED_CLIENTS: usize = 4096;

impl Quota {
    /// Counts one request of `client` at `now`; `Err` with how long until its minute ends when
    /// it has had `per_minute` already.
    pub(super) fn admit(
        &self,
        client: &str,
        per_minute: NonZeroU32,
        now: Instant,
    ) -> Result<(), Duration> {
        const MINUTE: Duration = Duration::from_secs(60);
        let mut windows = self.windows.lock().unwrap_or_else(PoisonError::into_inner);
        if windows.len() >= MAX_REMEMBERED_CLIENTS {
            windows.retain(|_, (began, _)| now.duration_since(*began) < MINUTE);
        }
        let (began, count) = windows.entry(client.to_owned()).or_insert((now, 0));
        if now.duration_since(*began) >= MINUTE {
            (*began, *count) = (now, 0);
        }
        if *count >= per_minute.get() {
            return Err(MINUTE.saturating_sub(now.duration_since(*began)));
        }
        *count += 1;
        Ok(())
    }
}

/// The sha256 of `value`'s JSON.
fn json_sha256(value: &impl serde::Serialize) -> String {
    sha256_hex(serde_json::to_string(value).unwrap_or_default().as_bytes())
}

/// The record of `call` before the skill is filled in.
fn event(
    settings: &AuditSettings,
    call: &Call<'_>,
    context: &RequestContext<RoleServer>,
) -> AuditEvent {
    let mut event = AuditEvent::new(
        EventKind::ToolCall,
        settings.user.clone(),
        settings.host.clone(),
        Actor::Client,
    );
    event.tool = Some(call.method.to_owned());
    event.call_id = Some(context.id.to_string());
    event.session = session(context);
    let arguments = serde_json::json!({ "uri": call.uri });
    event.args_digest = Some(skillful_audit::json_digest(&arguments));
    if !settings.redact {
        event.args = Some(arguments);
    }
    event.decision = Some("approved".to_owned());
    event.decided_by = Some("no policy".to_owned());
    event.duration_us = Some(u64::try_from(call.duration.as_micros()).unwrap_or(u64::MAX));
    match &call.outcome {
        Ok(answer) => {
            event.is_error = Some(false);
            event.result_digest = Some(answer.digest());
        }
        Err(error) => {
            event.is_error = Some(true);
            event.reason = Some(error.message.to_string());
        }
    }
    event
}
