//! The composition as a host sees it: real directories for every scope, a real trust store and
//! settings files, and a real MCP server on 127.0.0.1.

use std::fs;
use std::path::{Path, PathBuf};

use skillful_config::{
    Environment, ListedSkill, Loaded, McpServer, Settings, SettingsLevel, SkillsConfig, Status,
    TrustStore,
};
use skillful_core::{OriginKind, Scope, SourceContext};

/// A temporary world: a project (with `.git`) holding a working directory, a home, per-user
/// directories and an admin root.
struct World {
    _temp: tempfile::TempDir,
    root: PathBuf,
    environment: Environment,
}

impl World {
    fn new() -> Self {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().canonicalize().unwrap();
        let environment = Environment::under(&root).with_working_dir(root.join("project/src/deep"));
        fs::create_dir_all(root.join("project/src/deep")).unwrap();
        fs::create_dir_all(root.join("project/.git")).unwrap();
        Self {
            _temp: temp,
            root,
            environment,
        }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    /// Writes a skill `name` with `description` under `root` (relative to the world).
    fn skill(&self, root: &str, name: &str, description: &str) {
        let dir = self.path(root).join(name);
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\nBody of {name}.\n"),
        )
        .unwrap();
    }

    fn config(&self) -> SkillsConfig {
        SkillsConfig::new(self.environment.clone())
    }

    fn project_skills(&self) -> &'static str {
        "project/.agents/skills"
    }

    fn user_skills(&self) -> &'static str {
        "home/.agents/skills"
    }

    fn admin_skills(&self) -> &'static str {
        "admin/skills"
    }
}

async fn load(config: SkillsConfig) -> Loaded {
    config
        .build()
        .unwrap()
        .load(&SourceContext::default())
        .await
        .unwrap()
}

/// `(name, description)` of every active skill, as the model is offered them.
fn offered(loaded: &Loaded) -> Vec<(String, String)> {
    loaded
        .active()
        .iter()
        .map(|skill| (skill.name().to_owned(), skill.description().to_owned()))
        .collect()
}

/// `(name, description, status)` of every entry.
fn summary(loaded: &Loaded) -> Vec<(String, String, Status)> {
    loaded
        .entries
        .iter()
        .map(|entry| {
            let frontmatter = entry.skill.frontmatter();
            (
                frontmatter.name.clone(),
                frontmatter.description.clone(),
                entry.status.clone(),
            )
        })
        .collect()
}

fn active_descriptions(loaded: &Loaded) -> Vec<String> {
    loaded
        .active()
        .iter()
        .map(|skill| skill.frontmatter().description.clone())
        .collect()
}

#[tokio::test]
async fn an_untrusted_project_is_not_loaded_and_a_note_says_how_to_trust_it() {
    let world = World::new();
    world.skill(world.project_skills(), "planted", "From the repository.");
    world.skill(world.user_skills(), "mine", "The user's own.");

    let composition = world.config().build().unwrap();
    assert_eq!(composition.notes().len(), 1);
    let note = composition.notes()[0].to_string();
    assert!(note.contains("not trusted"), "{note}");
    assert!(
        note.contains(&format!("skills trust {}", world.path("project").display())),
        "{note}"
    );
    let loaded = composition.load(&SourceContext::default()).await.unwrap();
    assert_eq!(active_descriptions(&loaded), ["The user's own."]);

    // For one run.
    let loaded = load(world.config().trust_project(true)).await;
    assert_eq!(
        active_descriptions(&loaded),
        ["From the repository.", "The user's own."]
    );

    // A directory above the project (here one that holds the home directory, so trusted only
    // by force) does not cover it: the project is a repository of its own.
    TrustStore::trust(&world.environment, &world.root, true).unwrap();
    let composition = world.config().build().unwrap();
    assert_eq!(composition.notes().len(), 1, "{:?}", composition.notes());

    // For good.
    TrustStore::trust(&world.environment, &world.path("project"), false).unwrap();
    let composition = world.config().build().unwrap();
    assert!(composition.notes().is_empty());
    let loaded = composition.load(&SourceContext::default()).await.unwrap();
    assert_eq!(loaded.active()[0].origin().scope, Scope::Project);

    assert!(TrustStore::untrust(&world.environment.dirs, &world.path("project")).unwrap());
    let loaded = load(world.config()).await;
    assert_eq!(active_descriptions(&loaded), ["The user's own."]);
}

#[test]
fn the_walk_stops_below_home_and_home_is_trusted_only_by_force() {
    let world = World::new();
    let home = world.path("home");
    fs::create_dir_all(home.join(".agents/skills")).unwrap();
    fs::create_dir_all(home.join("notes")).unwrap();
    let environment = world
        .environment
        .clone()
        .with_working_dir(home.join("notes"));
    assert_eq!(
        environment.project(),
        None,
        "~/.agents is no project marker"
    );
    assert_eq!(environment.repository_root(), None);
    assert_eq!(environment.trust_target(), home.join("notes"));
    // A home under version control is no repository root either.
    fs::create_dir(home.join(".git")).unwrap();
    assert_eq!(environment.repository_root(), None);
    assert_eq!(environment.trust_target(), home.join("notes"));

    for dir in [&home, &world.root] {
        let error = TrustStore::trust(&environment, dir, false).unwrap_err();
        assert!(
            matches!(error, skillful_config::ConfigError::Risky { .. }),
            "{error}"
        );
        assert!(error.to_string().contains("--force"), "{error}");
    }
    assert!(TrustStore::load(&environment).unwrap().entries().is_empty());
    let trusted = TrustStore::trust(&environment, &home, true).unwrap();
    assert_eq!(trusted.risks, [skillful_config::Risk::Home]);
    let store = TrustStore::load(&environment).unwrap();
    assert!(store.entries()[0].forced());
}

#[test]
fn an_entry_of_the_old_format_is_verified_and_recorded_or_not_honoured() {
    let world = World::new();
    let dirs = &world.environment.dirs;
    let file = dirs.config_dir().unwrap().join(skillful_config::TRUST_FILE);
    let project = world.path("project");
    fs::create_dir_all(project.join(".agents/skills")).unwrap();
    let home = world.path("home");
    fs::create_dir_all(&home).unwrap();
    fs::write(
        &file,
        format!(
            "trusted = [{:?}, {:?}, \"/no/such/dir\"]\n",
            project.display(),
            home.display()
        ),
    )
    .unwrap();

    let store = TrustStore::load(&world.environment).unwrap();
    let [mine, home_entry, missing] = store.entries() else {
        panic!("{store:?}");
    };
    assert_eq!(mine.dir(), project);
    assert_eq!(mine.identity(), skillful_config::DirIdentity::of(&project));
    assert!(mine.identity().is_some());
    assert_eq!(
        home_entry.identity(),
        None,
        "the home directory is not verified"
    );
    assert_eq!(missing.identity(), None);
    let written = fs::read_to_string(&file).unwrap();
    assert!(written.contains("version = 2"), "{written}");
    assert!(written.contains("inode = "), "{written}");

    let found = world.environment.project().unwrap();
    assert_eq!(
        store.verdict(&found),
        skillful_config::Verdict::Trusted { by: project }
    );
}

#[cfg(unix)]
#[cfg(unix)]
#[test]
fn a_trusted_projects_skills_that_lead_into_another_directory_are_refused() {
    let world = World::new();
    let project = world.path("project");
    fs::create_dir_all(project.join(".agents")).unwrap();
    TrustStore::trust(&world.environment, &project, false).unwrap();
    let found = world.environment.project().unwrap();
    let store = TrustStore::load(&world.environment).unwrap();
    assert!(matches!(
        store.verdict(&found),
        skillful_config::Verdict::Trusted { .. }
    ));

    // Its skills directory becomes a link into a directory someone else may fill later.
    let elsewhere = world.path("shared/skills");
    fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, project.join(".agents/skills")).unwrap();
    let verdict = store.verdict(&found);
    assert_eq!(
        verdict,
        skillful_config::Verdict::Refused {
            risks: vec![skillful_config::Risk::LoadedOutside]
        }
    );
    let error = TrustStore::trust(&world.environment, &project, false).unwrap_err();
    assert!(
        error.to_string().contains("lead outside the project"),
        "{error}"
    );

    // A skill inside it linked out is found the same way.
    fs::remove_file(project.join(".agents/skills")).unwrap();
    fs::create_dir_all(project.join(".agents/skills")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, project.join(".agents/skills/planted")).unwrap();
    assert!(matches!(
        store.verdict(&found),
        skillful_config::Verdict::Refused { .. }
    ));
    // Trusted with --force, the user vouches for where it leads.
    TrustStore::trust(&world.environment, &project, true).unwrap();
    let store = TrustStore::load(&world.environment).unwrap();
    assert!(matches!(
        store.verdict(&found),
        skillful_config::Verdict::Trusted { .. }
    ));
}

#[test]
fn a_directory_name_that_is_not_utf8_is_stored_byte_for_byte() {
    use std::os::unix::ffi::OsStrExt;
    let world = World::new();
    let exact = world.root.join(std::ffi::OsStr::from_bytes(b"proj\xff"));
    let twin = world.root.join("proj\u{FFFD}");
    for dir in [&exact, &twin] {
        fs::create_dir_all(dir.join(".git")).unwrap();
        fs::create_dir_all(dir.join(".agents/skills")).unwrap();
    }
    TrustStore::trust(&world.environment, &exact, false).unwrap();
    let written = fs::read_to_string(
        world
            .environment
            .dirs
            .config()
            .join(skillful_config::TRUST_FILE),
    )
    .unwrap();
    assert!(written.contains("path-bytes = ["), "{written}");
    assert!(!written.contains('\u{FFFD}'), "{written}");

    let store = TrustStore::load(&world.environment).unwrap();
    assert_eq!(store.entries()[0].dir(), exact);
    assert!(store.entries()[0].shown().ends_with("/proj\\xFF"));
    let verdict = |dir: &Path| {
        let project = world
            .environment
            .clone()
            .with_working_dir(dir)
            .project()
            .unwrap();
        store.verdict(&project)
    };
    assert!(matches!(
        verdict(&exact),
        skillful_config::Verdict::Trusted { .. }
    ));
    assert_eq!(verdict(&twin), skillful_config::Verdict::Untrusted);
}

#[tokio::test]
async fn precedence_runs_explicit_project_user_admin_and_the_shadowed_are_kept_and_said() {
    let world = World::new();
    world.skill("explicit", "shared", "explicit");
    world.skill(world.project_skills(), "shared", "project");
    world.skill(world.user_skills(), "shared", "user");
    world.skill(world.admin_skills(), "shared", "admin");
    world.skill(world.user_skills(), "only-user", "user only");
    world.skill(world.admin_skills(), "only-admin", "admin only");
    world.skill(
        world.project_skills(),
        "Only-User",
        "project, differing in case",
    );

    let loaded = load(
        world
            .config()
            .root(world.path("explicit"))
            .default_scopes(true)
            .trust_project(true),
    )
    .await;
    let summary = summary(&loaded);
    let active: Vec<(&str, &str)> = summary
        .iter()
        .filter(|(_, _, status)| *status == Status::Active)
        .map(|(name, description, _)| (name.as_str(), description.as_str()))
        .collect();
    assert_eq!(
        active,
        [
            ("shared", "explicit"),
            ("Only-User", "project, differing in case"),
            ("only-admin", "admin only"),
        ]
    );
    let shadowed: Vec<(&str, Scope, Scope)> = loaded
        .entries
        .iter()
        .filter_map(|entry| match &entry.status {
            Status::Shadowed { by, .. } => Some((
                entry.skill.frontmatter().description.as_str(),
                entry.skill.origin().scope,
                by.scope,
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        shadowed,
        [
            ("project", Scope::Project, Scope::Explicit),
            ("user only", Scope::User, Scope::Project),
            ("user", Scope::User, Scope::Explicit),
            ("admin", Scope::Admin, Scope::Explicit),
        ]
    );

    // Without explicit roots, the default scopes alone; with them, the explicit roots alone.
    let loaded = load(world.config().trust_project(true)).await;
    assert_eq!(
        active_descriptions(&loaded),
        ["project, differing in case", "project", "admin only"]
    );
    let loaded = load(world.config().root(world.path("explicit"))).await;
    assert_eq!(active_descriptions(&loaded), ["explicit"]);
}

#[tokio::test]
async fn skills_are_disabled_by_the_user_the_project_and_the_run_later_levels_winning() {
    let world = World::new();
    for name in ["alpha", "beta", "gamma", "delta"] {
        world.skill(world.user_skills(), name, name);
    }
    fs::create_dir_all(world.path("project/.agents")).unwrap();
    let user = world.environment.user_config_file();
    let project = world.path("project/.agents/skillful.toml");
    Settings::set_enabled(
        &world.environment.dirs,
        &user,
        SettingsLevel::User,
        "alpha",
        false,
    )
    .unwrap();
    Settings::set_enabled(
        &world.environment.dirs,
        &user,
        SettingsLevel::User,
        "beta",
        false,
    )
    .unwrap();
    Settings::set_enabled(
        &world.environment.dirs,
        &project,
        SettingsLevel::Project,
        "beta",
        true,
    )
    .unwrap();
    Settings::set_enabled(
        &world.environment.dirs,
        &project,
        SettingsLevel::Project,
        "gamma",
        false,
    )
    .unwrap();

    // The project's settings count only when it is trusted.
    let loaded = load(world.config()).await;
    assert_eq!(active_descriptions(&loaded), ["delta", "gamma"]);

    let loaded = load(world.config().trust_project(true).disable("delta")).await;
    let statuses: Vec<(String, Status)> = summary(&loaded)
        .into_iter()
        .map(|(name, _, status)| (name, status))
        .collect();
    assert_eq!(
        statuses,
        [
            (
                "alpha".to_owned(),
                Status::Disabled {
                    by: SettingsLevel::User
                }
            ),
            ("beta".to_owned(), Status::Active),
            (
                "delta".to_owned(),
                Status::Disabled {
                    by: SettingsLevel::Run
                }
            ),
            (
                "gamma".to_owned(),
                Status::Disabled {
                    by: SettingsLevel::Project
                }
            ),
        ]
    );
    // Disabled skills are not offered: the provider's source has only the active ones.
    let source = world.config().trust_project(true).build().unwrap().source();
    let offered: Vec<String> = source
        .skills(&SourceContext::default())
        .await
        .unwrap()
        .iter()
        .map(|skill| skill.frontmatter().name.clone())
        .collect();
    assert_eq!(offered, ["beta", "delta"]);

    // Enabling again, and the allow-list mode.
    Settings::set_enabled(
        &world.environment.dirs,
        &user,
        SettingsLevel::User,
        "alpha",
        true,
    )
    .unwrap();
    fs::write(&user, "[skills]\nenabled = [\"alpha\"] # only this one\n").unwrap();
    let loaded = load(world.config()).await;
    assert_eq!(active_descriptions(&loaded), ["alpha"]);
    Settings::set_enabled(
        &world.environment.dirs,
        &user,
        SettingsLevel::User,
        "delta",
        true,
    )
    .unwrap();
    let text = fs::read_to_string(&user).unwrap();
    assert!(
        text.contains("# only this one"),
        "comments are kept: {text}"
    );
    let loaded = load(world.config()).await;
    assert_eq!(active_descriptions(&loaded), ["alpha", "delta"]);
}

#[tokio::test]
async fn project_plugin_directories_are_read_only_as_recorded_with_the_trust() {
    let world = World::new();
    let plugins = world.path("project/.agents/plugins");
    fs::create_dir_all(&plugins).unwrap();
    // Not a library at all: if the directory were read, loading it would be an error.
    let library = |stem: &str, text: &str| {
        let name = format!(
            "{}{stem}{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_SUFFIX
        );
        fs::write(plugins.join(name), text).unwrap();
    };
    library("x", "not a library");
    fs::write(
        world.path("project/.agents/skillful.toml"),
        "[plugins]\ndirs = [\"plugins\"]\n",
    )
    .unwrap();

    let loaded = load(world.config()).await;
    assert!(
        loaded.plugin_errors.is_empty(),
        "{:?}",
        loaded.plugin_errors
    );

    // Trusted for one run: its plugin directory was never recorded, so it is not read.
    let loaded = load(world.config().trust_project(true)).await;
    assert!(
        loaded.plugin_errors.is_empty(),
        "{:?}",
        loaded.plugin_errors
    );
    let note = |config: SkillsConfig| -> String {
        config
            .build()
            .unwrap()
            .notes()
            .iter()
            .map(|note| note.message.clone())
            .find(|message| message.contains("project plugins not loaded"))
            .unwrap_or_default()
    };
    let message = note(world.config().trust_project(true));
    assert!(
        message.contains("not recorded when the project was trusted"),
        "{message}"
    );

    // Trusted for good: the directory is recorded with its files, and read.
    TrustStore::trust(&world.environment, &world.path("project"), false).unwrap();
    let loaded = load(world.config()).await;
    assert_eq!(loaded.plugin_errors.len(), 1, "{:?}", loaded.plugin_errors);

    // A library planted after the trust: the directory is not read until trusted again.
    library("y", "planted");
    let loaded = load(world.config()).await;
    assert!(
        loaded.plugin_errors.is_empty(),
        "{:?}",
        loaded.plugin_errors
    );
    let message = note(world.config());
    assert!(
        message.contains("its files changed since the project was trusted"),
        "{message}"
    );
    assert!(message.contains("run `skills trust "), "{message}");
    TrustStore::trust(&world.environment, &world.path("project"), false).unwrap();
    let loaded = load(world.config()).await;
    assert_eq!(loaded.plugin_errors.len(), 2, "{:?}", loaded.plugin_errors);
}

#[tokio::test]
async fn an_mcp_skill_never_shadows_a_local_one_and_is_offered_under_its_label() {
    let world = World::new();
    world.skill("local", "notes", "The local notes.");
    world.skill("served", "notes", "The server's notes.");
    world.skill("served", "glossary", "The server's glossary.");
    let url = serve(&world.path("served")).await;

    let loaded = load(
        world
            .config()
            .root(world.path("local"))
            .mcp_server(McpServer::new("docs", skillful_mcp::McpEndpoint::http(&url)).unwrap()),
    )
    .await;
    let offered: Vec<(String, String, OriginKind)> = loaded
        .active()
        .iter()
        .map(|skill| {
            (
                skill.frontmatter().name.clone(),
                skill.frontmatter().description.clone(),
                skill.origin().kind,
            )
        })
        .collect();
    assert_eq!(
        offered,
        [
            (
                "notes".to_owned(),
                "The local notes.".to_owned(),
                OriginKind::Files
            ),
            (
                "glossary".to_owned(),
                "The server's glossary.".to_owned(),
                OriginKind::Mcp
            ),
            (
                "docs:notes".to_owned(),
                "The server's notes.".to_owned(),
                OriginKind::Mcp
            ),
        ]
    );
    let listed: Vec<ListedSkill> = loaded.entries.iter().map(ListedSkill::from).collect();
    let json = serde_json::to_value(&listed).unwrap();
    assert_eq!(json[2]["name"], "docs:notes");
    assert_eq!(json[2]["own_name"], "notes");
    assert_eq!(json[2]["origin"]["kind"], "mcp");
    assert_eq!(json[2]["uri"], "skill://notes/SKILL.md");
    assert_eq!(json[2]["status"], "active");
    assert_eq!(json[0]["origin"]["kind"], "files");
    assert_eq!(json[0]["origin"]["scope"], "explicit");

    // Two servers with the same skill: both under their labels, neither under the plain name.
    let loaded = load(
        world
            .config()
            .mcp_server(McpServer::new("a", skillful_mcp::McpEndpoint::http(&url)).unwrap())
            .mcp_server(McpServer::new("b", skillful_mcp::McpEndpoint::http(&url)).unwrap()),
    )
    .await;
    let names: Vec<String> = loaded
        .active()
        .iter()
        .map(|skill| skill.frontmatter().name.clone())
        .collect();
    assert_eq!(names, ["a:glossary", "a:notes", "b:glossary", "b:notes"]);
}

#[tokio::test]
async fn a_local_skill_named_like_a_renamed_mcp_skill_is_refused_even_when_lenient() {
    // The attack: a local skill named `docs:notes` and the server's `notes`, renamed `docs:notes`
    // because a local `notes` exists, are both active; `skills show docs:notes` is the local one.
    let world = World::new();
    world.skill("local", "notes", "The local notes.");
    world.skill("local", "docs:notes", "A look-alike of the server's notes.");
    world.skill("served", "notes", "The server's notes.");
    let url = serve(&world.path("served")).await;
    let loaded = load(
        world
            .config()
            .validation(skillful_core::validate::ValidationMode::Lenient)
            .root(world.path("local"))
            .mcp_server(McpServer::new("docs", skillful_mcp::McpEndpoint::http(&url)).unwrap()),
    )
    .await;
    assert_eq!(
        offered(&loaded),
        [
            ("notes".to_owned(), "The local notes.".to_owned()),
            ("docs:notes".to_owned(), "The server's notes.".to_owned()),
        ]
    );
    let refused = loaded
        .diagnostics
        .iter()
        .find(|diagnostic| diagnostic.message.contains("docs:notes"))
        .unwrap_or_else(|| panic!("{:?}", loaded.diagnostics));
    assert!(refused.is_error(), "{refused:?}");
    assert!(refused.message.contains("':'"), "{refused:?}");
}

/// A skill built in code under any name (embedders' own skills are not validated).
#[derive(Debug)]
struct Coded {
    frontmatter: skillful_core::SkillFrontmatter,
    origin: skillful_core::SkillOrigin,
}

#[async_trait::async_trait]
impl skillful_core::Skill for Coded {
    fn frontmatter(&self) -> &skillful_core::SkillFrontmatter {
        &self.frontmatter
    }

    fn origin(&self) -> &skillful_core::SkillOrigin {
        &self.origin
    }

    async fn document(&self) -> Result<skillful_core::SkillDocument, skillful_core::SkillError> {
        Ok(skillful_core::SkillDocument::instructions("Coded."))
    }

    fn resources(&self) -> Vec<std::sync::Arc<dyn skillful_core::SkillResource>> {
        Vec::new()
    }

    fn scripts(&self) -> Vec<std::sync::Arc<dyn skillful_core::SkillScript>> {
        Vec::new()
    }
}

#[tokio::test]
async fn a_renamed_mcp_skill_never_takes_a_name_another_skill_claims() {
    let world = World::new();
    world.skill("local", "notes", "The local notes.");
    world.skill("served", "notes", "The server's notes.");
    let url = serve(&world.path("served")).await;
    let coded = Coded {
        frontmatter: skillful_core::SkillFrontmatter::new("docs:notes", "The embedder's notes."),
        origin: skillful_core::SkillOrigin::inline(),
    };
    let loaded = load(
        world
            .config()
            .root(world.path("local"))
            .inline(std::sync::Arc::new(coded))
            .mcp_server(McpServer::new("docs", skillful_mcp::McpEndpoint::http(&url)).unwrap()),
    )
    .await;
    assert_eq!(
        offered(&loaded),
        [
            ("notes".to_owned(), "The local notes.".to_owned()),
            ("docs:notes".to_owned(), "The embedder's notes.".to_owned()),
        ]
    );
    let renamed = loaded
        .entries
        .iter()
        .find(|entry| entry.skill.description() == "The server's notes.")
        .unwrap();
    assert_eq!(
        renamed.status,
        Status::Shadowed {
            by_name: "docs:notes".to_owned(),
            by: skillful_core::SkillOrigin::inline(),
        }
    );
}

/// Serves the skills under `root` over streamable HTTP on 127.0.0.1; returns the URL.
async fn serve(root: &Path) -> String {
    let files = skillful_discovery::FileSkillsSource::builder()
        .root(root)
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://{}{}",
        listener.local_addr().unwrap(),
        skillful_mcp::HTTP_PATH
    );
    let server = skillful_mcp::SkillsMcpServer::new(files);
    tokio::spawn(server.serve_http(listener));
    url
}

#[cfg(unix)]
#[test]
fn a_trust_file_that_is_a_planted_link_is_refused() {
    let world = World::new();
    let config = world.environment.dirs.config_dir().unwrap().to_path_buf();
    let elsewhere = world.path("elsewhere.toml");
    fs::write(&elsewhere, "trusted = [\"/\"]\n").unwrap();
    std::os::unix::fs::symlink(&elsewhere, config.join(skillful_config::TRUST_FILE)).unwrap();
    let error = TrustStore::load(&world.environment)
        .unwrap_err()
        .to_string();
    assert!(error.contains("symbolic link"), "{error}");
}

#[test]
fn settings_name_the_directories_write_high_scripts_may_write() {
    let temp = tempfile::tempdir().unwrap();
    let file = temp.path().join("config.toml");
    fs::write(
        &file,
        "[sandbox]\nallow_write = [\"/srv/shared\", \"notes\"]\n",
    )
    .unwrap();
    let settings = Settings::load(&file, SettingsLevel::Project).unwrap();
    assert_eq!(
        settings.allow_write,
        [PathBuf::from("/srv/shared"), temp.path().join("notes")]
    );
    fs::write(&file, "[sandbox]\nallow_write = \"/srv\"\n").unwrap();
    let error = Settings::load(&file, SettingsLevel::Project).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("`sandbox.allow_write` must be a list of directories"),
        "{error}"
    );
}

#[test]
fn settings_name_the_agents_mode_and_refuse_any_other() {
    let temp = tempfile::tempdir().unwrap();
    let file = temp.path().join("config.toml");
    fs::write(&file, "[agent]\nmode = \"guided\"\n").unwrap();
    let settings = Settings::load(&file, SettingsLevel::Project).unwrap();
    assert_eq!(settings.agent_mode.as_deref(), Some("guided"));
    fs::write(&file, "[agent]\nmode = \"fast\"\n").unwrap();
    let error = Settings::load(&file, SettingsLevel::Project).unwrap_err();
    let error = error.to_string();
    assert!(error.contains("`agent.mode` must be"), "{error}");
    assert!(error.contains("config.toml"), "{error}");
}

#[tokio::test]
async fn hosts_named_in_settings_are_read_below_the_default_scopes_and_agent_alone_reads_them() {
    let world = World::new();
    world.skill(world.user_skills(), "shared", "user");
    world.skill("home/.claude/skills", "shared", "claude user");
    world.skill("home/.claude/skills", "only-claude", "claude only");
    world.skill(world.project_skills(), "project-only", "project");
    world.skill("project/.claude/skills", "project-only", "claude project");
    world.skill(
        "project/.claude/skills",
        "claude-project",
        "claude project only",
    );
    world.skill("home/.gemini/skills", "gemini", "gemini");
    let host = |name| skillful_discovery::hosts::Host::named(name).unwrap();

    // Not named anywhere: not read.
    let loaded = load(world.config().trust_project(true)).await;
    assert_eq!(active_descriptions(&loaded), ["project", "user"]);

    // Named in the user's settings: read, each below its scope's default root.
    let user = world.environment.user_config_file();
    skillful_state::write_private(&user, b"[skills]\nagents = [\"claude-code\", \"agents\"]\n")
        .unwrap();
    let loaded = load(world.config().trust_project(true)).await;
    assert_eq!(
        active_descriptions(&loaded),
        ["project", "claude project only", "user", "claude only"]
    );
    let scope_of = |description: &str| {
        loaded
            .entries
            .iter()
            .find(|entry| entry.skill.frontmatter().description == description)
            .map(|entry| entry.skill.origin().scope)
    };
    assert_eq!(scope_of("claude project only"), Some(Scope::Project));
    assert_eq!(scope_of("claude only"), Some(Scope::User));
    assert!(matches!(
        loaded
            .entries
            .iter()
            .find(|e| e.skill.frontmatter().description == "claude user")
            .map(|e| &e.status),
        Some(Status::Shadowed { .. })
    ));

    // Named for this composition only (`--agent`): those directories alone, and an untrusted
    // project's are not read.
    let composition = world
        .config()
        .host(host("gemini-cli"))
        .host(host("goose"))
        .build()
        .unwrap();
    let notes: Vec<String> = composition
        .notes()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(
        notes.iter().any(
            |note| note.contains(".config/goose/skills: no such directory")
                && note.contains("--agent goose")
        ),
        "{notes:?}"
    );
    let loaded = composition.load(&SourceContext::default()).await.unwrap();
    assert_eq!(active_descriptions(&loaded), ["gemini"]);
    let loaded = load(world.config().host(host("claude-code"))).await;
    assert_eq!(active_descriptions(&loaded), ["claude only", "claude user"]);
    let loaded = load(world.config().host(host("claude-code")).trust_project(true)).await;
    assert_eq!(
        active_descriptions(&loaded),
        [
            "claude project only",
            "claude project",
            "claude only",
            "claude user"
        ]
    );

    // An unknown name is an error naming the file, the key and the nearest name.
    skillful_state::write_private(&user, b"[skills]\nagents = [\"claude\"]\n").unwrap();
    let error = world.config().build().unwrap_err().to_string();
    assert!(
        error.contains("config.toml")
            && error.contains("skills.agents")
            && error.contains("did you mean claude-code?"),
        "{error}"
    );
}
