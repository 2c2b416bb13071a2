//! `SkillsMcpServer::watched`: a client connected to a server over watched roots is told when
//! the skills change (`notifications/resources/list_changed`, in both protocol eras), and its
//! next `skills/list` shows the change; real files, the platform's watcher.

use crate::common;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use common::write_tree;
use rmcp::ClientHandler;
use rmcp::model::{ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, RoleClient, RunningService,
    ServiceExt,
};
use skillful_discovery::FileSkillsSource;
use skillful_mcp::SkillsMcpServer;
use skillful_mcp::final_form::{self, ListingLimits};
use skillful_watch::WatchedSource;
use tokio::sync::mpsc;

/// How long a test waits for something the watcher must bring about.
const BOUND: Duration = Duration::from_secs(20);

/// A client that forwards every `notifications/resources/list_changed` it gets.
#[derive(Clone)]
struct Listener(mpsc::UnboundedSender<()>);

impl ClientHandler for Listener {
    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send(());
    }
}

async fn watched_server(root: &Path) -> (SkillsMcpServer, Arc<WatchedSource>) {
    let files = FileSkillsSource::builder().root(root).build().unwrap();
    let watched = Arc::new(
        WatchedSource::builder(files)
            .debounce(Duration::from_millis(50))
            .start()
            .await,
    );
    (SkillsMcpServer::watched(Arc::clone(&watched)), watched)
}

async fn legacy_client(
    server: SkillsMcpServer,
) -> (
    RunningService<RoleClient, Listener>,
    mpsc::UnboundedReceiver<()>,
) {
    let (server_end, client_end) = tokio::io::duplex(4 * 1024 * 1024);
    tokio::spawn(server.serve(server_end));
    let (sender, receiver) = mpsc::unbounded_channel();
    let client = Listener(sender).serve(client_end).await.unwrap();
    (client, receiver)
}

/// The descriptions `skills/list` gives, by name.
async fn listed<H: ClientHandler>(client: &RunningService<RoleClient, H>) -> Vec<(String, String)> {
    let page = final_form::list_all_skills(client.peer(), "ours", ListingLimits::default())
        .await
        .unwrap();
    page.skills
        .iter()
        .map(|skill| {
            (
                skill.frontmatter.name.clone(),
                skill.frontmatter.description.clone(),
            )
        })
        .collect()
}

fn add(root: &Path, name: &str, description: &str) {
    let text = format!("---\nname: {name}\ndescription: {description}\n---\nBody.\n");
    write_tree(root, &[(&format!("{name}/SKILL.md"), text.as_bytes())]);
}

/// The `listChanged` of the resources capability the server declared to `client`.
fn list_changed(client: &RunningService<RoleClient, Listener>) -> Option<bool> {
    let info = client.peer().peer_info().unwrap();
    info.capabilities.resources.as_ref().unwrap().list_changed
}

async fn next(notifications: &mut mpsc::UnboundedReceiver<()>) {
    tokio::time::timeout(BOUND, notifications.recv())
        .await
        .expect("list_changed within the bound")
        .expect("the client is connected");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_initialize_session_is_told_of_added_changed_and_removed_skills() {
    let root = tempfile::tempdir().unwrap();
    add(root.path(), "alpha", "A.");
    let (server, _watched) = watched_server(root.path()).await;
    let (client, mut notifications) = legacy_client(server).await;
    assert_eq!(list_changed(&client), Some(true));
    assert_eq!(listed(&client).await, [("alpha".into(), "A.".into())]);

    add(root.path(), "beta", "Added.");
    next(&mut notifications).await;
    assert_eq!(
        listed(&client).await,
        [
            ("alpha".into(), "A.".into()),
            ("beta".into(), "Added.".into())
        ]
    );

    add(root.path(), "beta", "Changed.");
    next(&mut notifications).await;
    assert_eq!(
        listed(&client).await,
        [
            ("alpha".into(), "A.".into()),
            ("beta".into(), "Changed.".into())
        ]
    );
    let read = client
        .peer()
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            "skill://beta/SKILL.md",
        ))
        .await
        .unwrap();
    assert!(format!("{read:?}").contains("Changed."));

    std::fs::remove_dir_all(root.path().join("alpha")).unwrap();
    next(&mut notifications).await;
    assert_eq!(listed(&client).await, [("beta".into(), "Changed.".into())]);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_2026_client_listening_is_told_too() {
    let root = tempfile::tempdir().unwrap();
    let (server, _watched) = watched_server(root.path()).await;
    let (server_end, client_end) = tokio::io::duplex(4 * 1024 * 1024);
    tokio::spawn(server.serve(server_end));
    let client = ()
        .serve_with_lifecycle(
            client_end,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    let mut subscription = client
        .peer()
        .listen(
            SubscriptionFilter::builder()
                .resources_list_changed()
                .build(),
        )
        .await
        .unwrap();
    assert_eq!(
        subscription.acknowledged().resources_list_changed,
        Some(true)
    );
    assert!(listed(&client).await.is_empty());

    add(root.path(), "gamma", "Added.");
    let notification = tokio::time::timeout(BOUND, subscription.next())
        .await
        .expect("list_changed within the bound")
        .unwrap();
    assert!(
        matches!(
            notification,
            Some(ServerNotification::ResourceListChangedNotification(_))
        ),
        "{notification:?}"
    );
    assert_eq!(listed(&client).await, [("gamma".into(), "Added.".into())]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_made_after_a_reported_change_never_gets_the_stale_listing() {
    let root = tempfile::tempdir().unwrap();
    let (server, watched) = watched_server(root.path()).await;
    let (client, _notifications) = legacy_client(server).await;
    assert!(listed(&client).await.is_empty());
    let mut reloads = watched.reloads();
    add(root.path(), "delta", "Added.");
    tokio::time::timeout(BOUND, reloads.changed())
        .await
        .unwrap()
        .unwrap();
    // Once the watcher reloaded, the very next request sees it: no rescan interval to wait out.
    assert_eq!(listed(&client).await, [("delta".into(), "Added.".into())]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_without_a_watcher_does_not_offer_list_changed() {
    let root = tempfile::tempdir().unwrap();
    let files = FileSkillsSource::builder()
        .root(root.path())
        .build()
        .unwrap();
    let (client, _notifications) = legacy_client(SkillsMcpServer::new(files)).await;
    assert_eq!(list_changed(&client), None);
}
