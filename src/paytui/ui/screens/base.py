"""The typed base of every paytui screen and modal: `PaytuiScreen`, `PaytuiModal`.

Why a base: three things every screen must do the same way, decided once.

- `app` is a `PaytuiHost` to the type checker, so screens call the app's public methods
  (`get_client`, `actions`, `now`, `why_disabled`) without `getattr` or `# type: ignore`.
- `check_action` asks the action registry (`paytui.actions.registry`) for every registered
  action: the policy (read-only, scopes) and whether it applies to the object the screen would
  act on (`action_subject`). Footer, `?` help, the palette and the key itself all go through it,
  so an action that cannot apply is shown disabled with its reason (`disabled_reason`), never
  opened only to say no. Screens decide their own actions in `check_own_action`.
- Modals show the environment bar themselves (production is never out of sight).
- A screen is dismissed once (`paytui.ui.textual_fixes.DismissOnce`): a second closing key queued
  behind the first never pops the screen beneath.
- Forms (`TEXT_ENTRY = True`) swallow every printable key that no field took: a key typed while
  focus is on a select, a button, or not yet on the first field (keys typed right after the key
  that opened the form) is dropped, never handed to the app's single-letter keys beneath.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Protocol, TypeVar, cast

from textual import events, getters
from textual.screen import ModalScreen, Screen

from paytui.actions.registry import spec_for
from paytui.ui import messages
from paytui.ui.bindings import MODAL_BINDINGS
from paytui.ui.textual_fixes import DismissOnce, StyledWhileHidden
from paytui.ui.widgets.header import PaytuiHeader

if TYPE_CHECKING:
    from textual.binding import ActiveBinding, BindingType
    from textual.message import Message

    from paytui.ui.host import PaytuiHost

ResultT = TypeVar("ResultT")


class _Host(Protocol):
    """What the mixin's methods need of the screen they are mixed into."""

    @property
    def app(self) -> PaytuiHost: ...

    def action_subject(self, action: str) -> object | None: ...

    def action_target(self, action: str) -> str | None: ...

    def disabled_reason(self, action: str) -> str | None: ...

    def action_note(self, action: str) -> str | None:
        """What the registry says beside a registered action here when it applies (None:
        nothing), such as "paytui does not know the status `settled`; the service will
        decide" (`ActionSpec.note`)."""
        spec = spec_for(action)
        return None if spec is None else spec.note(self.action_subject(spec.id))

    def check_own_action(self, action: str, parameters: tuple[object, ...]) -> bool | None: ...

    TEXT_ENTRY: ClassVar[bool]

    def header_account(self) -> str | None: ...

    def post_message(self, message: Message) -> bool: ...

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]: ...


class PaytuiScreenMixin(DismissOnce):
    """What `PaytuiScreen` and `PaytuiModal` share (see the module docstring)."""

    #: A form: printable keys no field consumed are dropped here (never reach app bindings).
    TEXT_ENTRY: ClassVar[bool] = False
    #: Where the team's own commands may be offered (`paytui.user_commands.SCREENS`, the
    #: `screens` of a `[[commands]]` table); None: none here.
    COMMAND_SCOPE: ClassVar[str | None] = None

    # --- the team's own commands (`paytui.ui.user_commands`) ------------------------------------
    def command_subject(self) -> object | None:
        """What a user command's placeholders are read from: the object the screen's actions
        act on (the highlighted row, the open charge)."""
        return self.action_subject("user_command")

    async def action_user_command(self, index: int) -> None:
        from paytui.ui.user_commands import run_user_command

        await run_user_command(self, index)  # type: ignore[arg-type]

    # --- the action registry ----------------------------------------------------------------
    def action_subject(self, action: str) -> object | None:
        """The object `action` would act on (the highlighted row, the open charge), or None."""
        return None

    def action_target(self, action: str) -> str | None:
        """The id the executor keys in-flight actions by (the charge id), if any."""
        return None

    def disabled_reason(self: _Host, action: str) -> str | None:
        """Why a registered action cannot run here now (None: it can, or it is not registered)."""
        spec = spec_for(action)
        if spec is None:
            return None
        return self.app.why_disabled(
            action, self.action_subject(spec.id), target=self.action_target(spec.id)
        )

    def action_note(self, action: str) -> str | None:
        """What the registry says beside a registered action here when it applies (None:
        nothing), such as "paytui does not know the status `settled`; the service will
        decide" (`ActionSpec.note`)."""
        spec = spec_for(action)
        return None if spec is None else spec.note(self.action_subject(spec.id))

    def check_own_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Screens override this for their own (unregistered) actions."""
        return True

    def check_action(self: _Host, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "user_command":
            from paytui.ui.user_commands import state_of

            return state_of(self, parameters)  # type: ignore[arg-type]
        if spec_for(action) is not None:
            return None if self.disabled_reason(action) else True
        return self.check_own_action(action, parameters)

    # --- screen-reader mode ----------------------------------------------------------------------
    def spoken_title(self) -> str | None:
        """This screen's name as a screen reader is told it on arrival (`ui/announcer.py`): a
        dialog's title, else the top screen's title (`top_screens`); None lets the announcer use
        the help screen's `KEYS_TITLE` / `HELP_TITLE`."""
        from paytui.ui.top_screens import TOP_SCREENS

        for top in TOP_SCREENS:
            if top.screen_class == type(self).__name__:
                return top.title
        dialogs = cast("Screen[object]", self).query("#dialog")
        title = dialogs.first().border_title if dialogs else None
        return str(title) if title else None

    # --- the header's account ---------------------------------------------------------------------
    def header_account(self) -> str | None:
        """The account of what this screen has open (a charge's, an account's); None on a list,
        where the header shows the profile's default account, never the row under the cursor."""
        return None

    def on_screen_resume(self: _Host) -> None:
        self.post_message(
            messages.AccountInFocus(self.header_account() or self.app.session.default_account_id)
        )
        if getattr(self, "COMMAND_SCOPE", None) is not None and self.app.session.commands:
            from paytui.ui.user_commands import bind_keys

            said = self.app.session.commands_said
            for line in bind_keys(self):  # type: ignore[arg-type]
                if line not in said:
                    said.add(line)
                    self.app.notify(line, title="Commands", severity="warning", markup=False)

    # --- forms ---------------------------------------------------------------------------------
    def on_key(self: _Host, event: events.Key) -> None:
        if not (self.TEXT_ENTRY and event.is_printable):
            return
        # A key the focused widget binds itself (space on a button or a select) still works.
        bound = self.active_bindings.get(event.key)
        if bound is not None and bound.node not in (self, self.app):
            return
        event.stop()
        event.prevent_default()


class PaytuiScreen(StyledWhileHidden, PaytuiScreenMixin, Screen[ResultT]):
    """A full screen of paytui (shown again by a mode switch, styled again only when its
    styles may have changed: `textual_fixes.StyledWhileHidden`)."""

    if TYPE_CHECKING:
        # Textual's typed-app property (`textual.getters.app`), for the type checker only: at
        # run time `app` stays Textual's; `PaytuiHost` is the App as screens see it.
        app = getters.app(PaytuiHost)


class PaytuiModal(PaytuiScreenMixin, ModalScreen[ResultT]):
    """A modal of paytui. It carries its own environment bar (docked on its top line), so the
    red PRODUCTION bar is never covered or dimmed by a dialog, full-screen ones included."""

    #: Keys of every dialog (the action log); a subclass's own `BINDINGS` add to them.
    BINDINGS: ClassVar[list[BindingType]] = [*MODAL_BINDINGS]

    if TYPE_CHECKING:
        app = getters.app(PaytuiHost)

    def on_mount(self) -> None:
        # Textual calls this besides a subclass's own `on_mount` (handlers run along the MRO).
        if not self.query(PaytuiHeader):
            self.mount(PaytuiHeader(), before=0 if self.children else None)


__all__ = ["PaytuiModal", "PaytuiScreen", "PaytuiScreenMixin"]
