//! The `ServerHandler` methods [`ProfiledServer`](crate::ProfiledServer)
//! leaves to the handler it wraps, forwarded by one macro.
//!
//! A trait method an impl leaves out silently falls back to rmcp's default
//! instead of reaching the user's handler, so a forward written by hand drifts
//! whenever rmcp adds a method. Here every method of the trait is accounted
//! for in one place, and `tests/tests/integration/forwarding.rs` sends each
//! forwarded one through a real client and fails if any stops reaching the
//! handler.

/// Implements, inside `impl ServerHandler for ProfiledServer<S>`, every
/// `ServerHandler` method that `ProfiledServer` does not answer itself, each
/// by calling the same method of `self.handler()` with the same arguments.
/// An `async fn` entry returns the handler's future as is rather than
/// wrapping it in another, so a forward costs nothing.
///
/// Every method of rmcp 3.11's `ServerHandler`, in trait order:
///
/// ```text
/// ping                         forwarded
/// initialize                   overridden: runs the handler's `initialize`, adds
///                              tools.listChanged (and the grouping extension for a
///                              client that declares it), registers the session for
///                              list_changed
/// negotiate_initialize         overridden: the handler's result plus tools.listChanged
/// supported_protocol_versions  forwarded
/// discover                     overridden: runs the handler's `discover`, adds the
///                              tools capability (and the grouping extension, as
///                              initialize)
/// complete                     forwarded
/// set_level                    forwarded (logging is deprecated in rmcp)
/// get_prompt                   overridden: the profile's prompts when S has prompt
///                              groups, else forwarded
/// list_prompts                 overridden: as get_prompt
/// list_resources               overridden: the profile's resources when S has resource
///                              groups, else forwarded
/// list_resource_templates      overridden: as list_resources
/// read_resource                overridden: as list_resources
/// accepted_subscription_filter overridden: the handler's filter plus toolsListChanged
/// listen                       overridden: registers the stream for list_changed, then
///                              runs the handler's `listen`
/// subscribe                    overridden: refused outside the profile's resources when
///                              S has resource groups, else forwarded (deprecated in rmcp)
/// unsubscribe                  forwarded (deprecated in rmcp)
/// call_tool                    tools: dispatched within the current profile only
/// list_tools                   tools: the current profile's list (marked with each
///                              tool's groups for a grouping client; as the session
///                              disclosed it under progressive disclosure)
/// get_tool                     tools: looked up in the current profile
/// on_custom_request            overridden: `groups/list` for a session served the grouping
///                              extension, else forwarded
/// on_cancelled                 forwarded
/// on_progress                  forwarded
/// on_initialized               overridden: marks the session ready for list_changed,
///                              then runs the handler's `on_initialized`
/// on_roots_list_changed        forwarded
/// on_custom_notification       forwarded
/// get_info                     overridden: the handler's info plus tools.listChanged
/// get_task                     forwarded
/// update_task                  forwarded
/// cancel_task                  forwarded
/// list_skills                  forwarded
/// get_skill                    forwarded
/// read_resource_directory      forwarded
/// ```
///
/// The overridden and tool methods are written out in `server.rs`. Types are
/// spelled from `rmcp::` because they resolve where the macro expands.
macro_rules! forward_to_handler {
    () => {
        $crate::forward::forward_to_handler! { @each
            async fn ping(
                context: rmcp::service::RequestContext<rmcp::service::RoleServer>,
            ) -> Result<(), rmcp::ErrorData>;
            fn supported_protocol_versions(
            ) -> std::borrow::Cow<'static, [rmcp::model::ProtocolVersion]>;
            async fn complete(
                request: rmcp::model::CompleteRequestParams,
                context: rmcp::service::RequestContext<rmcp::service::RoleServer>,
            ) -> Result<rmcp::model::CompleteResult, rmcp::ErrorData>;
            #[allow(deprecated)]
            async fn set_level(
                request: rmcp::model::SetLevelRequestParams,
                context: rmcp::service::RequestContext<rmcp::service::RoleServer>,
            ) -> Result<(), rmcp::ErrorData>;
            #[allow(deprecated)]
            async fn unsubscribe(
                request: rmcp::model::UnsubscribeRequestParams,
                context: rmcp::service::RequestContext<rmcp::service::RoleServer>,
            ) -> Result<(), rmcp::ErrorData>;
            async fn on_cancelled(
                notification: rmcp::model::CancelledNotificationParam,
                context: rmcp::service::NotificationContext<rmcp::service::RoleServer>,
            ) -> ();
            async fn on_progress(
                notification: rmcp::model::ProgressNotificationParam,
                context: rmcp::service::NotificationContext<rmcp::service::RoleServer>,
            ) -> ();
            async fn on_roots_list_changed(
                context: rmcp::service::NotificationContext<rmcp::service::RoleServer>,
            ) -> ();
            async fn on_custom_notification(
                notification: rmcp::model::CustomNotification,
                context: rmcp::service::NotificationContext<rmcp::service::RoleServer>,
            ) -> ();
            async fn get_task(
                request: rmcp::model::GetTaskParams,
                context: rmcp::service::RequestContext<rmcp::service::RoleServer>,
            ) -> Result<rmcp::model::GetTaskResult, rmcp::ErrorData>;
            async fn update_task(
                request: rmcp::model::UpdateTaskParams,
                context: rmcp::service::RequestContext<rmcp::service::RoleServer>,
            ) -> Result<(), rmcp::ErrorData>;
            async fn cancel_task(
                request: rmcp::model::CancelTaskParams,
                context: rmcp::service::RequestContext<rmcp::service::RoleServer>,
            ) -> Result<(), rmcp::ErrorData>;
            async fn list_skills(
                request: Option<rmcp::model::PaginatedRequestParams>,
                context: rmcp::service::RequestContext<rmcp::service::RoleServer>,
            ) -> Result<rmcp::model::ListSkillsResult, rmcp::ErrorData>;
            async fn get_skill(
                request: rmcp::model::GetSkillRequestParams,
                context: rmcp::service::RequestContext<rmcp::service::RoleServer>,
            ) -> Result<rmcp::model::GetSkillResult, rmcp::ErrorData>;
            async fn read_resource_directory(
                request: rmcp::model::ReadResourceDirectoryRequestParams,
                context: rmcp::service::RequestContext<rmcp::service::RoleServer>,
            ) -> Result<rmcp::model::ReadResourceDirectoryResult, rmcp::ErrorData>;
        }
    };
    // One method at a time, so asynchronous and plain ones may mix.
    (@each) => {};
    (
        @each
        $(#[$attr:meta])*
        async fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $out:ty;
        $($rest:tt)*
    ) => {
        $(#[$attr])*
        fn $name(
            &self,
            $($arg: $ty),*
        ) -> impl ::core::future::Future<Output = $out> + rmcp::service::MaybeSendFuture + '_ {
            self.handler().$name($($arg),*)
        }
        $crate::forward::forward_to_handler! { @each $($rest)* }
    };
    (
        @each
        $(#[$attr:meta])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $out:ty;
        $($rest:tt)*
    ) => {
        $(#[$attr])*
        fn $name(&self, $($arg: $ty),*) -> $out {
            self.handler().$name($($arg),*)
        }
        $crate::forward::forward_to_handler! { @each $($rest)* }
    };
}

pub(crate) use forward_to_handler;
