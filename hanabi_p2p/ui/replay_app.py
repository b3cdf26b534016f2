"""The interactive replay on the terminal: one full-screen window, driven by keys alone.

←/→ step, PgUp/PgDn ten steps, Home/End the deal and the end, `g 37` Enter the state after
turn 37, q or Esc quit (Esc first cancels a `g` being typed). What is drawn is
`render_replay` of the cursor (ui/replay.py); this module only maps keys onto the cursor.
Input and output can be injected (`create_pipe_input()`, `DummyOutput()`) for tests.
"""

from __future__ import annotations

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl, Layout, Window
from prompt_toolkit.output import Output

from hanabi_p2p.ui.replay import PAGE_STEPS, CursorMode, Replay, ReplayCursor, render_replay
from hanabi_p2p.ui.symbols import Theme, glyphs_for, style_for
from hanabi_p2p.ui.text import to_formatted

# Below this the screen is too small to draw anything useful (it is still drawn, clipped).
MIN_COLUMNS = 20
MIN_ROWS = 3
DIGITS = "0123456789"
UNICODE_ENCODINGS = ("utf8", "utf16", "utf32")


class ReplayApp:
    """`run()` blocks until the viewer quits."""

    def __init__(
        self,
        replay: Replay,
        *,
        theme: Theme = Theme.AUTO,
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        self.cursor = ReplayCursor(replay)
        body = Window(FormattedTextControl(self._fragments), wrap_lines=False)
        self.application: Application[None] = Application(
            layout=Layout(body),
            key_bindings=self._key_bindings(),
            style=style_for(theme),
            full_screen=True,
            input=input,
            output=output,
        )
        self._glyphs = glyphs_for(self.application.output.encoding())

    def run(self) -> None:
        self.application.run()

    async def run_async(self) -> None:
        await self.application.run_async()

    def screen_lines(self) -> list[str]:
        """The screen as plain text, for tests."""
        return ["".join(text for _style, text in line) for line in self._lines()]

    def _lines(self) -> list[list[tuple[str, str]]]:
        size = self.application.output.get_size()
        return render_replay(
            self.cursor, max(size.columns, MIN_COLUMNS), max(size.rows, MIN_ROWS), self._glyphs
        )

    def _fragments(self) -> StyleAndTextTuples:
        encoding = self.application.output.encoding()
        lines = self._lines()
        if encoding.lower().replace("-", "") not in UNICODE_ENCODINGS:
            # a terminal that cannot show the arrows or a name gets '?' instead (the glyphs
            # are already ASCII there), as the live table does
            lines = [[(style, text.encode(encoding, "replace").decode(encoding, "replace"))
                      for style, text in line] for line in lines]
        return to_formatted(lines)

    def _typing(self) -> bool:
        return self.cursor.mode is CursorMode.TYPING_TURN

    def _key_bindings(self) -> KeyBindings:
        kb = KeyBindings()
        cursor = self.cursor

        def browse(*keys: str, delta: int) -> None:
            @kb.add(*keys)
            def _step(event: KeyPressEvent) -> None:
                if not self._typing():
                    cursor.move(delta)

        browse("right", delta=1)
        browse("left", delta=-1)
        browse("pagedown", delta=PAGE_STEPS)
        browse("pageup", delta=-PAGE_STEPS)

        @kb.add("home")
        def _home(event: KeyPressEvent) -> None:
            if not self._typing():
                cursor.home()

        @kb.add("end")
        def _end(event: KeyPressEvent) -> None:
            if not self._typing():
                cursor.end()

        @kb.add("g")
        def _goto(event: KeyPressEvent) -> None:
            if not self._typing():
                cursor.start_typing()

        for digit in DIGITS:

            @kb.add(digit)
            def _digit(event: KeyPressEvent) -> None:
                if self._typing():
                    cursor.type_digit(event.data)

        @kb.add("backspace")
        def _backspace(event: KeyPressEvent) -> None:
            cursor.backspace()

        @kb.add("enter")
        def _enter(event: KeyPressEvent) -> None:
            if self._typing():
                cursor.submit()

        @kb.add("q")
        def _q(event: KeyPressEvent) -> None:
            if not self._typing():
                event.app.exit()

        @kb.add("escape", eager=True)
        def _escape(event: KeyPressEvent) -> None:
            if self._typing():
                cursor.cancel()
            else:
                event.app.exit()

        @kb.add("c-c")
        @kb.add("c-d")
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit()

        return kb
