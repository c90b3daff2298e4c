"""The web app's next-move chips and "Page the on-call" draft come from netopsai.copilot.nextmove, the
module the terminal and the Slack bot share (one list of examples, one draft): re-exported here
so the web app's imports stay as they were."""

from netopsai.copilot.nextmove import (
    MAX_NEXT,
    UNPLACED,
    corrected,
    examples,
    follow_ups,
    label_words,
    next_questions,
    page_draft,
    ruled_out_words,
    short_unplaced,
    tag_ruled_out,
    unplaced,
)

__all__ = ["MAX_NEXT", "UNPLACED", "corrected", "examples", "follow_ups", "label_words",
           "next_questions", "page_draft", "ruled_out_words", "short_unplaced", "tag_ruled_out",
           "unplaced"]
