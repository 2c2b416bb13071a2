//! What `skills engine status` and `skills engine models` report, built here from the records
//! and the catalogue this crate owns: the command prints these as lines, or as one JSON document
//! with `--json` (their JSON Schemas, the `schema` feature, are committed under
//! `docs/src/reference/schemas/`).

use std::path::PathBuf;

use serde::Serialize;

use crate::catalogue::{DEFAULT_MODEL, MODELS};
use crate::{Engine, EngineError, EngineRecord};

/// A running engine: its record, and what a look at it now says.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EngineStatus {
    /// What its state directory records.
    #[serde(flatten)]
    pub record: EngineRecord,
    /// Its OpenAI-compatible base URL.
    pub endpoint: String,
    /// Whether it answered `GET /health` just now.
    pub answering: bool,
    /// Whether it was started for a command that is still running (and ends with it).
    pub temporary: bool,
}

/// `skills engine status`: the engines running.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StatusReport {
    /// The running engines, by port (none when none runs).
    pub engines: Vec<EngineStatus>,
}

/// A model of the catalogue, and whether it is installed here.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ModelStatus {
    /// The name `--model` takes.
    pub name: &'static str,
    /// What it is.
    pub description: &'static str,
    /// Its size in bytes.
    pub size: u64,
    /// The licence of its weights (SPDX).
    pub licence: &'static str,
    /// The chat template it is started with unless told otherwise.
    pub template: &'static str,
    /// Whether it is installed and checked.
    pub installed: bool,
    /// Whether it is the model used when none is named.
    pub default: bool,
}

/// `skills engine models`: the catalogue and where models are installed.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ModelsReport {
    /// The models that can be installed.
    pub models: Vec<ModelStatus>,
    /// The directory they are installed into.
    pub cache: PathBuf,
}

impl Engine {
    /// The running engines ([`Engine::running`]), each asked whether it answers.
    ///
    /// # Errors
    /// As [`Engine::running`].
    pub async fn status(&self) -> Result<StatusReport, EngineError> {
        let mut engines = Vec::new();
        for record in self.running()? {
            engines.push(EngineStatus {
                endpoint: record.endpoint(),
                answering: record.is_answering().await,
                temporary: record.is_temporary(),
                record,
            });
        }
        Ok(StatusReport { engines })
    }

    /// The catalogue ([`MODELS`]), each model with whether it is installed; nothing is
    /// installed or created.
    pub fn models(&self) -> ModelsReport {
        ModelsReport {
            models: MODELS
                .iter()
                .map(|model| ModelStatus {
                    name: model.name,
                    description: model.description,
                    size: model.size,
                    licence: model.licence,
                    template: model.template,
                    installed: self.is_installed(model),
                    default: model.name == DEFAULT_MODEL,
                })
                .collect(),
            cache: self.dirs().cache().join("engine"),
        }
    }
}
