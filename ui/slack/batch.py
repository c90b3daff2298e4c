"""Batch connectivity checks from Slack: IPs inline or an attached file (files API), progress as
pairs finish, then the summary and its failure groups. The checking is netopsai.copilot.batch's."""

from __future__ import annotations

import threading
import urllib.request
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from slack_sdk import WebClient

from netopsai.common.errors import NetopsError
from netopsai.ui.slack.blocks import batch_blocks
from netopsai.ui.slack.work import Progress, SlackContext, guarded

if TYPE_CHECKING:
    from netopsai.copilot.batch import PairResult


def inline_lines(text: str) -> str:
    """Words typed after `batch` (spaces or newlines between them) as one entry per line."""
    return "\n".join(text.split())


def _trusted(url: str, api_url: str) -> bool:
    """The bot token goes only to Slack's own file hosts (or the API host it is configured for)."""
    u, api = urlsplit(url), urlsplit(api_url)
    host = u.hostname or ""
    on_slack = u.scheme == "https" and (host == "slack.com" or host.endswith(".slack.com"))
    return on_slack or (u.scheme, u.netloc) == (api.scheme, api.netloc)


def file_text(client: WebClient, file_id: str, limit: int) -> str:
    """An attached file's text, through files.info and its private download URL."""
    info = client.files_info(file=file_id)["file"]
    name = info.get("name", file_id)
    if int(info.get("size") or 0) > limit:
        raise NetopsError(f"{name} is larger than the {limit} bytes a batch file may have")
    url = info.get("url_private_download") or info.get("url_private") or ""
    if not _trusted(url, client.base_url):
        raise NetopsError(f"{name}: its download address is not on Slack; not fetching it")
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {client.token}"})
    with urllib.request.urlopen(req, timeout=30) as resp:  # noqa: S310 (checked above)
        data = resp.read(limit + 1)
    if len(data) > limit:
        raise NetopsError(f"{name} is larger than the {limit} bytes a batch file may have")
    return data.decode("utf-8", errors="replace")


class _Counter:
    """Progress as results come in (from worker threads): about ten updates per run."""

    def __init__(self, progress: Progress, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0
        self.every = max(1, total // 10)
        self.lock = threading.Lock()

    def __call__(self, _result: Any) -> None:
        with self.lock:
            self.done += 1
            done = self.done
        if done % self.every == 0 or done == self.total:
            self.progress.step(f"{done}/{self.total} pairs checked")


def _failure(r: PairResult) -> str:
    """One failing pair as a line."""
    if r.error:
        return f"line {r.line}: {r.src} -> {r.dst}: {r.error}"
    where = f" at {r.failing_device}" if r.failing_device else ""
    return f"line {r.line}: {r.src} -> {r.dst}: {r.cause or 'unreachable'}{where}"


def run_batch(ctx: SlackContext, progress: Progress, load: Callable[[], str], user: str) -> None:
    """Parse, check every pair with bounded concurrency, then summarise in the placeholder."""
    def work() -> list[dict[str, Any]]:
        from netopsai.copilot.batch import BatchChecker, default_source, parse_pairs, summarize

        backends = ctx.copilot.backends
        pairs, errors = parse_pairs(load(), default_source(backends))
        problems = [str(e) for e in errors]
        if not pairs:
            raise NetopsError("no pairs to check" + (f": {problems[0]}" if problems else ""))
        checker = BatchChecker(backends, ctx.settings.batch_concurrency)
        results = checker.run(pairs, on_result=_Counter(progress, len(pairs)))
        return batch_blocks(summarize(results), [_failure(r) for r in results
                                                 if r.error or not r.reachable], problems)
    guarded(progress.start(), work)
