//! Switching automation and reporting auto-fix outcomes on the demo board.

use super::*;

/// The demo board with task-2 linked to GitHub PR 7 and GitLab MR 3.
fn linked() -> Board {
    let mut board = Board::demo();
    for (host, number) in [("github", 7), ("gitlab", 3)] {
        let key = (
            "task-2".to_owned(),
            host.to_owned(),
            "repo-1".to_owned(),
            number,
        );
        board.change_requests.insert(
            key,
            ChangeRequest {
                task_id: "task-2".into(),
                provider: host.into(),
                repository_id: "repo-1".into(),
                number,
                auto_fix_enabled: false,
                auto_merge_enabled: false,
                prompt_on_review_requested: true,
                prompt_on_merged: true,
                prompt_on_closed: true,
            },
        );
    }
    board
}

fn target(scope: TargetScope) -> AutomationTarget {
    AutomationTarget {
        scope,
        provider: None,
        repository_id: None,
        number: None,
        providers: None,
    }
}

fn patch() -> AutomationPatch {
    AutomationPatch {
        auto_fix_enabled: None,
        auto_merge_enabled: None,
        prompt_on_review_requested: None,
        prompt_on_merged: None,
        prompt_on_closed: None,
        auto_fix_prompt_override: None,
    }
}

fn github_pr_7() -> AutomationTarget {
    AutomationTarget {
        provider: Some(CodeHost::Github),
        repository_id: Some("repo-1".into()),
        number: Some(7),
        ..target(TargetScope::Association)
    }
}

#[test]
fn an_association_target_changes_that_link_only() {
    let mut board = linked();
    let patch = AutomationPatch {
        auto_fix_enabled: Some(true),
        ..patch()
    };
    let reply = update(
        &mut board,
        "task-2",
        UpdateAutomation {
            target: github_pr_7(),
            patch,
        },
    )
    .unwrap();
    assert_eq!(reply["updated"], 1);
    let fixing: Vec<_> = board
        .change_requests
        .values()
        .map(|link| link.auto_fix_enabled)
        .collect();
    assert_eq!(fixing, [true, false]);
}

#[test]
fn a_task_target_changes_every_link_of_its_providers_and_their_prompts() {
    let mut board = linked();
    let target = AutomationTarget {
        providers: Some(vec![CodeHost::Github, CodeHost::Gitlab]),
        ..target(TargetScope::Task)
    };
    let patch = AutomationPatch {
        prompt_on_merged: Some(false),
        auto_fix_prompt_override: Some(" Fix the checks. ".into()),
        ..patch()
    };
    let reply = update(&mut board, "task-2", UpdateAutomation { target, patch }).unwrap();
    assert_eq!(reply["updated"], 2);
    assert_eq!(
        reply["auto_fix_prompts"],
        json!({ "github": "Fix the checks.", "gitlab": "Fix the checks." })
    );
    assert!(
        board
            .change_requests
            .values()
            .all(|link| !link.prompt_on_merged)
    );
}

#[test]
fn each_scope_refuses_the_other_scopes_fields() {
    let mut board = linked();
    let mut mixed = github_pr_7();
    mixed.providers = Some(vec![CodeHost::Github]);
    let switch = || AutomationPatch {
        auto_merge_enabled: Some(true),
        ..patch()
    };
    let error = update(
        &mut board,
        "task-2",
        UpdateAutomation {
            target: mixed,
            patch: switch(),
        },
    )
    .unwrap_err();
    assert_eq!(error.field, "target.providers");
    let prompt = AutomationPatch {
        auto_fix_prompt_override: Some("x".into()),
        ..patch()
    };
    let error = update(
        &mut board,
        "task-2",
        UpdateAutomation {
            target: github_pr_7(),
            patch: prompt,
        },
    )
    .unwrap_err();
    assert_eq!(error.field, "patch.auto_fix_prompt_override");
    let mut task = target(TargetScope::Task);
    task.number = Some(7);
    let error = update(
        &mut board,
        "task-2",
        UpdateAutomation {
            target: task,
            patch: switch(),
        },
    )
    .unwrap_err();
    assert_eq!(error.field, "target.number");
    let twice = AutomationTarget {
        providers: Some(vec![CodeHost::Gitlab, CodeHost::Gitlab]),
        ..target(TargetScope::Task)
    };
    let error = update(
        &mut board,
        "task-2",
        UpdateAutomation {
            target: twice,
            patch: switch(),
        },
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid `target.providers`: `gitlab` is listed twice"
    );
    let error = update(
        &mut board,
        "task-2",
        UpdateAutomation {
            target: github_pr_7(),
            patch: patch(),
        },
    )
    .unwrap_err();
    assert_eq!(error.field, "patch");
}

#[test]
fn only_a_github_link_with_auto_fix_on_has_an_outcome_to_report() {
    let mut board = linked();
    let report = || AutoFixOutcomeReport {
        outcome: Outcome::ActionTaken,
        summary: "Pushed the check fix.".into(),
    };
    let error = report_outcome(&mut board, "task-2", report()).unwrap_err();
    assert_eq!(error.field, "outcome");
    for link in board.change_requests.values_mut() {
        link.auto_fix_enabled = link.provider == "github";
    }
    report_outcome(&mut board, "task-2", report()).unwrap();
    assert_eq!(board.auto_fix_outcomes[0].outcome, "action_taken");
}
