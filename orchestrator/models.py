"""The orchestrator app's models, which Django looks for here; each is defined in its feature's package
(`chat`, `assistants`, `simulation`, `learning`, `validation`,
`conversation_tests`, `cold_start`). Import them from there.
"""

from orchestrator.assistants.models import Assistant, AssistantMode, PromotionPolicy
from orchestrator.chat.models import ChatSession, Message, MessageRole, ShareAudit, TraceEvent, TraceKind
from orchestrator.cold_start.models import (
    CampaignMode,
    CampaignState,
    ColdStartCampaign,
    ColdStartRound,
)
from orchestrator.conversation_tests.models import ConversationTest, ConversationTestPolicy, ConversationTestRun
from orchestrator.learning.models import LearningJob, Refinement, RefinementStatus, SandboxVersion
from orchestrator.simulation.models import (
    ScenarioRevision,
    SimulatedConversation,
    SimulationRun,
    SimulationScenario,
)
from orchestrator.validation.models import TrajectoryAnalysis

__all__ = [
    "TrajectoryAnalysis",
    "AssistantMode",
    "Assistant",
    "PromotionPolicy",
    "ChatSession",
    "MessageRole",
    "Message",
    "TraceKind",
    "TraceEvent",
    "ShareAudit",
    "SimulationScenario",
    "SimulationRun",
    "SimulatedConversation",
    "RefinementStatus",
    "Refinement",
    "LearningJob",
    "ConversationTest",
    "ConversationTestRun",
    "ConversationTestPolicy",
    "ScenarioRevision",
    "CampaignMode",
    "CampaignState",
    "ColdStartCampaign",
    "ColdStartRound",
    "SandboxVersion",
]
