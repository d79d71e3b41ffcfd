//! A real 2026-07-28 rmcp client session: discover lifecycle, list_changed
//! only on a `subscriptions/listen` stream that asked for it.

use rmcp::model::{ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::service::{NotificationContext, RoleClient, RunningService, Subscription};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt};
use tokio::sync::watch;

pub use crate::waits::{LIMIT, QUIET};

/// A 2026-07-28 client that counts list_changed reaching its handler, which
/// only unsolicited (never subscribed) notifications would.
pub struct Modern {
    /// Bumped per unsolicited list_changed.
    pub unsolicited: watch::Sender<usize>,
}

impl ClientHandler for Modern {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.unsolicited.send_modify(|count| *count += 1);
    }
}

/// One connected 2026-07-28 session.
pub struct ModernSession {
    /// The running rmcp client.
    pub service: RunningService<RoleClient, Modern>,
    unsolicited: watch::Receiver<usize>,
}

impl ModernSession {
    /// Connects over `transport` with the discover lifecycle.
    pub async fn connect<T, E, A>(transport: T) -> Self
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A> + Send + 'static,
        E: std::error::Error + Send + Sync + 'static,
    {
        let (unsolicited, receiver) = watch::channel(0);
        let service = Modern { unsolicited }
            .serve_with_lifecycle(
                transport,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .expect("the discover lifecycle succeeds");
        ModernSession {
            service,
            unsolicited: receiver,
        }
    }

    /// Opens a `subscriptions/listen` stream for `toolsListChanged`.
    pub async fn subscribe(&self) -> Subscription {
        let filter = SubscriptionFilter::builder().tools_list_changed().build();
        let subscription = self
            .service
            .listen(filter)
            .await
            .expect("subscriptions/listen");
        assert_eq!(subscription.acknowledged().tools_list_changed, Some(true));
        subscription
    }

    /// The listed tool names, sorted.
    pub async fn tool_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .service
            .list_all_tools()
            .await
            .expect("tools/list")
            .into_iter()
            .map(|tool| tool.name.into_owned())
            .collect();
        names.sort();
        names
    }

    /// Calls `tool` with `arguments` (an object, or nothing).
    pub async fn call(
        &self,
        tool: &str,
        arguments: Option<serde_json::Value>,
    ) -> crate::client::CallOutcome {
        let params = crate::client::call_params(tool, arguments);
        crate::client::outcome(self.service.call_tool(params).await)
    }

    /// Unsolicited list_changed notifications received so far.
    pub fn unsolicited(&self) -> usize {
        *self.unsolicited.borrow()
    }
}

/// Exactly one tools/list_changed arrives on `subscription`, and no other
/// notification follows within [`QUIET`].
pub async fn expect_one_list_changed(subscription: &mut Subscription) {
    expect_list_changed(subscription, &[crate::client::List::Tools]).await;
}

/// Exactly one list_changed per entry of `lists` arrives on
/// `subscription`, in that order, and no other notification follows
/// within [`QUIET`].
pub async fn expect_list_changed(subscription: &mut Subscription, lists: &[crate::client::List]) {
    use crate::client::List;
    for list in lists {
        let next = tokio::time::timeout(LIMIT, subscription.next())
            .await
            .expect("a list_changed arrives on the subscription")
            .expect("the subscription is open")
            .expect("a notification");
        let matches = match list {
            List::Tools => matches!(next, ServerNotification::ToolListChangedNotification(_)),
            List::Prompts => matches!(next, ServerNotification::PromptListChangedNotification(_)),
            List::Resources => {
                matches!(next, ServerNotification::ResourceListChangedNotification(_))
            }
        };
        assert!(matches, "expected {list:?}'s list_changed, got {next:?}");
    }
    expect_silence(subscription).await;
}

/// Opens a `subscriptions/listen` stream on `session` with `filter`.
pub async fn listen(session: &ModernSession, filter: SubscriptionFilter) -> Subscription {
    session
        .service
        .listen(filter)
        .await
        .expect("subscriptions/listen")
}

/// No further tools/list_changed reaches either era within [`QUIET`]: the
/// 2025-era `legacy` session has still heard exactly `heard`, nothing
/// arrives on the 2026-07-28 `subscription`, and `modern` got none
/// unsolicited.
pub async fn expect_no_further_tools_list_changed(
    legacy: &crate::client::Session,
    heard: usize,
    modern: &ModernSession,
    subscription: &mut Subscription,
) {
    expect_silence(subscription).await;
    assert_eq!(legacy.notifications(), heard);
    assert_eq!(modern.unsolicited(), 0);
}

/// No notification arrives on `subscription` within [`QUIET`].
pub async fn expect_silence(subscription: &mut Subscription) {
    if let Ok(next) = tokio::time::timeout(QUIET, subscription.next()).await {
        panic!("unexpected notification: {next:?}");
    }
}
