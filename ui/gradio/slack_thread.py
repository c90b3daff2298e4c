"""A Slack conversation opened in the web app from its "Open in netopsai" link
(`?thread=slack:CHANNEL:TS&sig=…`, ui/slack/links.py). The on-call expects the conversation, not
an empty page: its turns, answers and evidence are shown read-only with a note that it lives in
Slack, and the page goes on in a new web thread seeded with it (Copilot.seed), so a follow-up
asked here reads as one in that conversation while Slack's thread is never written to.

Who may: the link must carry the bot's signature for that thread (SlackSettings.thread_sig: a
Slack thread key is guessable, the signature is not), and with web login on the user must be in
SLACK_WEB_READERS (a web login is not a Slack identity). Anything else opens a fresh web thread
with the one-line reason, and nothing of the Slack thread is read."""

from __future__ import annotations

from netopsai.common.errors import NetopsError
from netopsai.copilot import threads
from netopsai.ui.gradio.chat import ChatHandler, ChatView, new_thread, thread_key
from netopsai.ui.gradio.headline import headline_html
from netopsai.ui.gradio.views import inert


def is_slack(asked: str) -> bool:
    return threads.parse((asked or "").strip()).front == "slack"


def refusal(key: str, sig: str, user: str | None) -> str | None:
    from netopsai.config.slack import read_settings

    try:
        settings = read_settings()
    except NetopsError as exc:
        return str(exc)
    return settings.web_refusal(key, sig, user)


def open_slack(chat: ChatHandler, key: str, sig: str, user: str | None) -> tuple[str, ChatView]:
    """The web thread the page goes on in, and what it shows."""
    fresh = new_thread()
    why = refusal(key, sig, user)
    if why:
        return fresh, ChatView([], status=inert(f"{why}; a new thread `{fresh}` starts instead"),
                               headline=headline_html(""))
    if not chat.copilot.thread(key).turns:
        return fresh, ChatView([], status=f"that Slack thread has no conversation here; a new "
                                          f"thread `{fresh}` starts instead", headline=headline_html(""))
    chat.copilot.seed(key, thread_key(fresh, user))  # Slack's thread itself is only read
    view = chat.resume(fresh, user, asked=True)
    where = threads.parse(key)
    view.status = (f"This conversation lives in Slack (channel {where.owner}, thread {where.id}) "
                   f"and is shown read-only; a question asked here goes on in a new web thread "
                   f"`{fresh}` that starts from it.")
    # said in the chat too, above the conversation: on a phone the status is far below it
    note = {"role": "assistant", "content": f"_From Slack (channel {where.owner}), read-only: "
                                            "a question asked here starts a web thread from it._"}
    view.history = [note, *view.history]
    return fresh, view
