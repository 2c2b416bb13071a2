//! `skills search QUERY [ROOT...]`: the skills that best match a request, as the `search_skills`
//! tool ranks them.

use serde::Deserialize;
use serde_json::json;
use skillful_core::SourceContext;
use skillful_core::text::one_line;
use skillful_provider::{SkillsProvider, ToolOutput};

use crate::inspect::{Roots, print_findings};
use crate::{Outcome, UsageError, output};

#[derive(Debug, clap::Args)]
pub(crate) struct SearchArgs {
    /// What to look for, in a few words (e.g. "fill in a PDF form").
    query: String,
    /// The most skills to print (default 5, at most 20).
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
    /// Print exactly the JSON array the `search_skills` tool returns.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    roots: Roots,
}

/// One hit of the tool's output, for the table.
#[derive(Deserialize)]
struct Hit {
    name: String,
    description: String,
    score: f64,
    #[serde(default)]
    low_confidence: bool,
}

pub(crate) async fn search(args: SearchArgs) -> anyhow::Result<Outcome> {
    let composition = args.roots.compose()?;
    // Whether some root holds invalid skills: the exit status says so.
    let loaded = composition.load(&SourceContext::default()).await?;
    print_findings(&loaded.diagnostics, &loaded.plugin_errors)?;
    let invalid = loaded.has_errors();
    let provider = SkillsProvider::new(composition.source());
    let run = provider.context(&SourceContext::default()).await?;
    let mut arguments = json!({ "query": args.query });
    if let Some(limit) = args.limit {
        arguments["limit"] = limit.into();
    }
    let found = match run.tool("search_skills") {
        // No skills at all: nothing matches.
        None => "[]".to_owned(),
        Some(tool) => match tool.invoke(arguments).await {
            ToolOutput::Text(text) => text,
            ToolOutput::Error(error) => {
                return Err(UsageError(format!("{} {}", error.message, error.hint)).into());
            }
        },
    };
    let mut out = output::stdout();
    if args.json {
        writeln!(out, "{found}")?;
    } else {
        let hits: Vec<Hit> = serde_json::from_str(&found)?;
        if hits.is_empty() {
            writeln!(
                output::stderr(),
                "skills: no skill matches '{}'",
                one_line(&args.query)
            )?;
        }
        let shown = |text: &str| one_line(text).into_owned();
        let width = hits
            .iter()
            .map(|hit| shown(&hit.name).chars().count())
            .max()
            .unwrap_or(0);
        for hit in &hits {
            let weak = if hit.low_confidence { "  (weak)" } else { "" };
            writeln!(
                out,
                "{:width$}  {:>7.3}  {}{weak}",
                shown(&hit.name),
                hit.score,
                shown(&hit.description)
            )?;
        }
    }
    Ok(if invalid {
        Outcome::Invalid
    } else {
        Outcome::Ok
    })
}
