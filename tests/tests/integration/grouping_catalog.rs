//! Groups on the wire for runtime catalogs (issue 45 §1): a catalog's own
//! groups ([`RuntimeGroup`]), named, titled and described in its wire form,
//! listed to a grouping client while one of their tools is, with the
//! membership of each tool and one `groups/list_changed` per install that
//! changes them; refused when built wrong, every problem named.

use mcp_profiles::rmcp::model::CallToolResult;
use mcp_profiles::{
    Catalog, GROUP_MEMBERSHIP_KEY, ProfileController, Rule, RuntimeGroup, RuntimeTool,
};
use mcp_profiles_tests::client::serve_http;
use mcp_profiles_tests::clinic::{Capability, Clinic, billing, desk};
use mcp_profiles_tests::raw::{GROUPS_CHANGED, RawSession, TOOLS_CHANGED, declaring_grouping};
use serde_json::{Value, json};

const TOKEN: &str = "unused";

fn tool(name: &str, rule: Rule<Clinic>) -> RuntimeTool<Clinic> {
    let schema = json!({"type": "object"}).as_object().unwrap().clone();
    RuntimeTool::new(name, "a plugin tool", schema, rule, |_, _| async {
        Ok(CallToolResult::success(vec![]))
    })
}

/// Revision `revision` of the plugins: `page_oncall` in the pager's group,
/// `bill_insurer` (billing only) in the insurer's, `take_note` in none.
fn plugins(revision: u64) -> Catalog<Clinic> {
    let groups = [
        RuntimeGroup::new("plugin.pager")
            .with_title("Pager")
            .with_description("Page the doctor on call"),
        RuntimeGroup::new("plugin.insurer").with_title("Insurer"),
    ];
    let tools = [
        tool("page_oncall", Rule::always()).in_group("plugin.pager"),
        tool(
            "bill_insurer",
            Rule::always().requiring(Capability::Billing),
        )
        .in_group("plugin.insurer"),
        tool("take_note", Rule::always()),
    ];
    Catalog::grouped("plugins", revision, groups, tools).expect("a valid catalog")
}

async fn list_groups(session: &RawSession) -> Value {
    session.request(TOKEN, "groups/list", json!({})).await["result"]["groups"].clone()
}

/// The names of the groups `session` lists.
async fn group_names(session: &RawSession) -> Vec<String> {
    let groups = list_groups(session).await;
    let groups = groups.as_array().expect("groups");
    groups
        .iter()
        .map(|group| group["name"].as_str().unwrap().to_owned())
        .collect()
}

/// What `session` lists of `tool`: its `_meta` membership (`Null`: none).
async fn membership(session: &RawSession, tool: &str) -> Value {
    let listed = session.request(TOKEN, "tools/list", json!({})).await;
    let tools = listed["result"]["tools"].as_array().expect("tools").clone();
    let found = tools.iter().find(|listed| listed["name"] == tool);
    found.expect("listed")["_meta"][GROUP_MEMBERSHIP_KEY].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catalogs_groups_are_listed_while_their_tools_are() {
    let controller = ProfileController::<Clinic>::new(desk()).with_grouping();
    let (http, uri) = serve_http(controller.server(Clinic)).await;
    let declares = declaring_grouping();
    let mut aware = RawSession::open_with(&uri, TOKEN, declares).await;
    let mut plain = RawSession::open(&uri, TOKEN).await;

    // Installed: the pager's group comes, with its title and description;
    // the insurer's does not (its tool needs billing).
    controller.install(&plugins(1));
    let heard = aware.events_until(GROUPS_CHANGED).await;
    assert_eq!(heard.matches(TOOLS_CHANGED).count(), 1, "{heard}");
    assert_eq!(
        list_groups(&aware).await,
        json!([
            {
                "name": "plugin.pager",
                "title": "Pager",
                "description": "Page the doctor on call",
            },
            {
                "name": "records",
                "title": "Patient records",
                "description": "Find, read and remove patients",
            },
        ])
    );
    assert_eq!(
        membership(&aware, "page_oncall").await,
        json!(["plugin.pager"])
    );
    assert_eq!(membership(&aware, "take_note").await, Value::Null);
    // A client without the extension hears of the tools only, and sees no
    // membership.
    let heard = plain.events_until(TOOLS_CHANGED).await;
    assert!(!heard.contains(GROUPS_CHANGED), "{heard}");
    assert_eq!(membership(&plain, "page_oncall").await, Value::Null);

    // Billing on: the insurer's group is listed with its tool.
    controller.replace(billing());
    aware.events_until(GROUPS_CHANGED).await;
    let names = group_names(&aware).await;
    assert_eq!(
        names,
        ["billing", "plugin.insurer", "plugin.pager", "records"]
    );
    assert_eq!(
        membership(&aware, "bill_insurer").await,
        json!(["plugin.insurer"])
    );

    // The same catalog again changes nothing; one without groups takes
    // them away: one groups notification.
    controller.install(&plugins(2));
    let ungrouped = Catalog::new("plugins", 3, [tool("page_oncall", Rule::always())]).unwrap();
    controller.install(&ungrouped);
    let heard = aware.events_until(GROUPS_CHANGED).await;
    assert_eq!(heard.matches(GROUPS_CHANGED).count(), 1, "{heard}");
    let names = group_names(&aware).await;
    assert_eq!(names, ["billing", "records"]);
    assert_eq!(membership(&aware, "page_oncall").await, Value::Null);
    http.shutdown().await.unwrap();
}

#[test]
fn a_catalog_with_wrong_groups_is_refused_naming_every_problem() {
    let groups = [
        RuntimeGroup::new("plugin.pager").with_title(" "),
        RuntimeGroup::new("plugin.pager"),
        RuntimeGroup::new("records"),
        RuntimeGroup::new("plugin.fax").with_title("Fax\nmachine"),
        RuntimeGroup::new("plugin.mail").with_description(""),
        RuntimeGroup::new("plugin empty"),
    ];
    let tools = [
        tool("page_oncall", Rule::always()).in_group("plugin.pager"),
        tool("send_fax", Rule::always())
            .in_group("plugin.fax")
            .in_group("records"),
        tool("send_mail", Rule::always()).in_group("plugin.mail"),
        tool("stray", Rule::always()).in_group("plugin.unknown"),
    ];
    let refused = Catalog::<Clinic>::grouped("plugins", 1, groups, tools).unwrap_err();
    let problems: Vec<String> = refused.iter().map(ToString::to_string).collect();
    assert_eq!(
        problems,
        [
            "runtime group \"plugin.pager\" is invalid: its title is blank",
            "runtime group `plugin.pager` is declared twice",
            "runtime group `records` has the name of a compiled tool group; name it otherwise",
            "runtime group \"plugin.fax\" is invalid: its title is more than one line",
            "runtime group \"plugin.mail\" is invalid: its description is blank",
            "runtime group \"plugin empty\" is invalid: it contains ' '; a tool name uses only A-Z, a-z, 0-9, `_`, `-` and `.`",
            "runtime tool `stray` is in group `plugin.unknown`, which the catalog does not declare",
        ]
    );
}
