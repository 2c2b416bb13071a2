//! The README's library example: the catalog and the three tools over `examples/skills`.
//! Run it with `cargo run --example quickstart`.

use std::sync::Arc;
use agent_skills::core::SourceContext;
use agent_skills::discovery::FileSkillsSource;
use agent_skills::provider::{SkillsProvider, SkillsSourceBuilder};
use serde_json::json;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = FileSkillsSource::builder().root("examples/skills").build()?;
    let source = SkillsSourceBuilder::new().source(Arc::new(files)).cache().build();
    let provider = SkillsProvider::new(source);

    let run = provider.context(&SourceContext::default()).await?; // on every agent run
    let system_prompt = run.instructions().unwrap_or_default();  // the catalog, MAF's wording
    println!("{system_prompt}");
    for tool in run.tools() {                                     // load_skill, read_skill_resource, run_skill_script
        println!("{}: {}", tool.name(), tool.parameters());
    }
    let load = run.tool("load_skill").expect("skills were found");
    println!("{}", load.invoke(json!({"skillName": "unit-converter"})).await.into_model_text());
    Ok(())
}
