//! The approval policy for skill tools: read-only and all rules matched on the provider's own
//! tool instances, and risk tiers.

use std::sync::Arc;

use async_trait::async_trait;
use skillful_chat::{Remember, Tool};
use skillful_core::RiskTier;
use skillful_decorators::{ApprovalPolicy, Decision, RememberError};
use skillful_provider::{ProviderId, SkillTool};

use crate::approvals::ApprovalsStore;
use crate::context::SkillFunction;

/// Which skill tools run without asking.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AutoApprove {
    /// None: every call asks (unless a tier rule or a remembered approval covers it).
    #[default]
    None,
    /// The provider's read-only tools: `load_skill`, `read_skill_resource` and `search_skills`.
    ReadOnly,
    /// All of the provider's tools, `run_skill_script` included.
    All,
}

/// The approval rules of an agent, checked in this order for each call of a skills provider's
/// own tools (matched by instance, not by name):
///
/// 1. a call at or above [`refuse_from`](Self::refuse_from) is refused: the model is told, the
///    call never runs, no approval overrides it;
/// 2. [`auto_approve`](Self::auto_approve): the read-only or all rule;
/// 3. a call at or below [`approve_up_to`](Self::approve_up_to) runs (e.g. `read` scripts);
/// 4. otherwise the call asks, unless the person approved it for good (the agent's
///    [`ApprovalsStore`]: the same tool, skill and script, while the skill's files are
///    unchanged).
///
/// Rules 2 and 3 cover a script only when [`scripts_isolated`](Self::scripts_isolated) says the
/// runner enforces the sandbox of its tier (the host asks its runner, as
/// `skillful_scripts::ProcessRunner::isolates`): where it does not (no Landlock, not Linux,
/// `--sandbox off`), a tier is only its author's claim, so every script call asks unless the
/// person approved it for good.
///
/// The rules are applied again when a held-back call resumes: a call they refuse is refused
/// whatever the answer (a waiting call may come from an edited session file).
///
/// Tools of anyone else (another context provider, even one calling its tool `load_skill`)
/// always ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApprovalRules {
    /// The read-only or all rule.
    pub auto_approve: AutoApprove,
    /// Calls whose risk tier is at most this run without asking.
    pub approve_up_to: Option<RiskTier>,
    /// Calls whose risk tier is at least this are refused (default `destructive`).
    pub refuse_from: Option<RiskTier>,
    /// Whether the scripts of the agent's skills run in the sandbox of their tier, so that the
    /// auto-approve and tier rules may cover them (default `false`: not known, every script
    /// asks).
    pub scripts_isolated: bool,
}

impl Default for ApprovalRules {
    fn default() -> Self {
        Self {
            auto_approve: AutoApprove::None,
            approve_up_to: None,
            refuse_from: Some(RiskTier::Destructive),
            scripts_isolated: false,
        }
    }
}

impl ApprovalRules {
    /// The default rules with `auto_approve`.
    pub fn new(auto_approve: AutoApprove) -> Self {
        Self {
            auto_approve,
            ..Self::default()
        }
    }

    /// The same rules, also approving calls up to `tier`.
    pub fn approve_up_to(mut self, tier: RiskTier) -> Self {
        self.approve_up_to = Some(tier);
        self
    }

    /// The same rules, saying whether scripts run isolated in the sandbox of their tier (the
    /// runner's `isolates()`); only then do the auto-approve and tier rules cover scripts.
    pub fn scripts_isolated(mut self, isolated: bool) -> Self {
        self.scripts_isolated = isolated;
        self
    }

    /// The same rules, refusing calls from `tier` up (`None`: refuse nothing).
    pub fn refuse_from(mut self, tier: Option<RiskTier>) -> Self {
        self.refuse_from = tier;
        self
    }
}

/// [`ApprovalRules`] applied to the tools of the agent's skills providers, with the approvals
/// people gave for good.
#[derive(Debug)]
pub(crate) struct SkillsApprovalPolicy {
    pub(crate) providers: Vec<ProviderId>,
    pub(crate) rules: ApprovalRules,
    pub(crate) store: Arc<ApprovalsStore>,
}

impl SkillsApprovalPolicy {
    /// The skills provider's own tool behind `tool`, recognised by type and provider.
    fn skill_tool<'a>(&self, tool: &'a dyn Tool) -> Option<&'a SkillTool> {
        tool.as_any()
            .downcast_ref::<SkillFunction>()
            .filter(|function| self.providers.contains(&function.0.id().provider))
            .map(|function| &function.0)
    }
}

#[async_trait]
impl ApprovalPolicy for SkillsApprovalPolicy {
    async fn decide(&self, tool: &dyn Tool, arguments: &serde_json::Value) -> Decision {
        let Some(skill_tool) = self.skill_tool(tool) else {
            return Decision::Ask;
        };
        let tier = skill_tool.risk_tier(arguments);
        if let Some(refused) = self.rules.refuse_from.filter(|refused| tier >= *refused) {
            return Decision::Refuse(format!(
                "its risk tier is `{tier}`, and this agent refuses `{refused}` and above"
            ));
        }
        let by_rule = match self.rules.auto_approve {
            AutoApprove::All => Some("rule: auto-approve all".to_owned()),
            AutoApprove::ReadOnly if skill_tool.is_read_only() => {
                Some("rule: auto-approve read-only".to_owned())
            }
            AutoApprove::ReadOnly | AutoApprove::None => None,
        };
        let by_tier = self
            .rules
            .approve_up_to
            .filter(|up_to| tier <= *up_to)
            .map(|up_to| format!("rule: approve up to {up_to}"));
        // A script the sandbox does not hold to its tier is never approved by a rule.
        let ruled = skill_tool.is_read_only() || self.rules.scripts_isolated;
        if let Some(grounds) = by_rule.or(by_tier).filter(|_| ruled) {
            return Decision::Approve(grounds);
        }
        match skill_tool.subject(arguments) {
            Some(subject) if self.store.covers(&subject, arguments).await => {
                Decision::Approve("remembered approval".to_owned())
            }
            _ => Decision::Ask,
        }
    }

    async fn remember(
        &self,
        tool: &dyn Tool,
        arguments: &serde_json::Value,
        remember: Remember,
    ) -> Result<(), RememberError> {
        let Some(skill_tool) = self.skill_tool(tool) else {
            return Err(RememberError(format!(
                "`{}` is not a tool of this agent's skills providers; only their calls are \
                 approved for good",
                tool.name()
            )));
        };
        let Some(subject) = skill_tool.subject(arguments) else {
            return Err(RememberError(
                "the call names no skill (or script) of this run".to_owned(),
            ));
        };
        self.store
            .remember(&subject, arguments, remember)
            .await
            .map_err(|error| RememberError(error.to_string()))
    }
}
