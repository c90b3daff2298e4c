"""One way to extend netopsai: a table per extension kind (tools, backends, diagnosis checks
and symptoms, job rules, lab fault kinds, analysis recipes), filled by registration in the
modules that define the built-in ones and by packages installed from elsewhere through an
entry-point group of the kind's own.

A table fills itself, so nobody has to import anything first: the first read imports the
kind's built-in modules (their decorators register), once, under a lock, so two threads that
look a tool up at once both see the whole table. Entry points are read on the first full
listing (iteration, length) or for a name not found, never for a built-in's look-up: scanning
the installed packages costs 10-100 ms, which a cold `ask` should not pay. Each entry point is
loaded once; a name still missing reads the group again, so a package installed since is found.
A built-in (or an explicit registration) wins over an entry point of the same name, so an
installed package cannot silently replace what the copilot ships. A plugin that fails to load
is logged and skipped: a broken package never breaks the table."""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable, Hashable, Iterable, Iterator, MutableMapping
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")
log = logging.getLogger(__name__)

# what an entry point's object becomes: (key, item) pairs; none when importing its module was
# the registration (a decorated function)
Adopt = Callable[[str, Any], Iterable[tuple[Any, Any]]]


def by_name(name: str, obj: Any) -> Iterable[tuple[str, Any]]:
    """The default: the entry point's object under the entry point's name."""
    return [(name, obj)]


class Registry(MutableMapping[K, T], Generic[K, T]):
    """`kind` names it in messages; `group` is its entry-point group (None: built-ins only);
    `builtins` the modules whose import registers the built-in ones (or a function listing them,
    for kinds found by file name); `home`, when given, names the one built-in module that would
    register a key (None: no such module), so a look-up imports that module alone, not every
    built-in (a cold `ask` that runs one tool need not import the other five)."""

    def __init__(self, kind: str, group: str | None = None,
                 builtins: Iterable[str] | Callable[[], Iterable[str]] = (),
                 adopt: Adopt = by_name, home: Callable[[K], str | None] | None = None) -> None:
        self.kind, self.group, self._adopt = kind, group, adopt
        self._builtins = builtins
        self._home = home
        self._table: dict[K, T] = {}
        self._lock = threading.RLock()
        self._built = False
        self._building = False  # this thread is importing the built-ins (a re-entrant read)
        self._plugins_read = False
        self._loaded: set[tuple[str, str]] = set()  # entry points loaded: (name, value)

    # registration: never loads anything, so a module registering on import cannot recurse
    def add(self, key: K, item: T) -> T:
        self._table[key] = item
        return item

    def register(self, key: K) -> Callable[[T], T]:
        """A decorator: `@REG.register("name")` adds what it decorates under `name`."""
        def add(item: T) -> T:
            return self.add(key, item)
        return add

    # loading
    def _load_builtins(self) -> None:
        if self._built:
            return
        with self._lock:
            if self._built or self._building:
                return
            self._building = True
            try:
                modules = self._builtins() if callable(self._builtins) else self._builtins
                for module in modules:
                    importlib.import_module(module)
                self._built = True
            finally:
                self._building = False

    def load_plugins(self) -> None:
        """Read the entry-point group: every entry point not loaded yet is loaded and adopted."""
        self._load_builtins()
        if self.group is None:
            return
        from importlib.metadata import entry_points

        with self._lock:
            self._plugins_read = True
            for ep in entry_points(group=self.group):
                if (ep.name, ep.value) in self._loaded:
                    continue
                self._loaded.add((ep.name, ep.value))
                try:
                    obj = ep.load()
                    pairs = list(self._adopt(ep.name, obj))
                except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the table
                    log.warning("%s plugin %s not loaded: %s: %s", self.kind, ep.name,
                                type(exc).__name__, exc)
                    continue
                for key, item in pairs:
                    self._table.setdefault(key, item)

    def known(self) -> dict[K, T]:
        """What is registered now (the built-ins loaded), without reading the entry points."""
        self._load_builtins()
        return dict(self._table)

    def _whole(self) -> dict[K, T]:
        self._load_builtins()
        if not self._plugins_read:
            self.load_plugins()
        return self._table

    def _load_home(self, key: K) -> None:
        """The module `home` names for KEY imported (its registration runs), under the lock."""
        if self._built or self._home is None or key in self._table:
            return
        module = self._home(key)
        if module is None:
            return
        with self._lock:
            if not self._built and key not in self._table:
                importlib.import_module(module)

    # the mapping
    def __getitem__(self, key: K) -> T:
        self._load_home(key)
        if key in self._table:  # a built-in found by its own module: the others stay unimported
            return self._table[key]
        self._load_builtins()
        if key not in self._table:
            self.load_plugins()  # a name not built in: perhaps an installed package's
        return self._table[key]

    def __setitem__(self, key: K, item: T) -> None:
        self._load_builtins()  # so a later first read does not overwrite what is set here
        self._table[key] = item

    def __delitem__(self, key: K) -> None:
        self._load_builtins()
        del self._table[key]

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._whole()))  # a copy: another thread may load a plugin meanwhile

    def __len__(self) -> int:
        return len(self._whole())

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self._table)} registered)"
