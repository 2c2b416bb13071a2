//! The README's library example: the catalog and the three tools over `examples/skills`.
//! Run it with `cargo run --example quickstart`.

use std::sync::Arc;

use serde_json::json;
use skillful::core::SourceContext;
use skillful::discovery::FileSkillsSource;
use skillful::inline::SkillsSourceBuilder;
use skillful::provider::SkillsProvider;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = FileSkillsSource::builder()
        .root("examples/skills")
        .build()?;
    let source = SkillsSourceBuilder::new()
        .source(Arc::new(files))
        .cache()
        .build();
    let provider = SkillsProvider::new(source);

    // On every agent run: the catalog for the system prompt (MAF's wording) and three tools.
    let run = provider.context(&SourceContext::default()).await?;
    println!("{}", run.instructions().unwrap_or_default());
    for tool in run.tools() {
        println!("{}: {}", tool.name(), tool.parameters());
    }

    // The model calls a tool with JSON arguments and is shown text.
    let load = run.tool("load_skill").expect("skills were found");
    let content = load.invoke(json!({"skillName": "unit-converter"})).await;
    println!("{}", content.into_model_text());
    Ok(())
}
