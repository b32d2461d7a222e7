"""Every private part of Textual the tests touch, and the Textual version it was checked against.

A private name may change or go in any Textual release. Each one the tests read, call or patch is
listed here with where and why; `tests/test_textual_privates.py` fails when the installed Textual
is not `CHECKED_AGAINST` (check each name below against the new version's source, then update
it), when a listed name is gone, and when a test touches a private Textual name not listed.
Textual is pinned (pyproject.toml), so a failure here comes with a deliberate upgrade.
"""

from __future__ import annotations

#: The Textual release every name below was read in.
CHECKED_AGAINST = "8.2.8"

#: (owner, name, where and why). The owner is a module, or a module's class (``module:Class``);
#: for a class, the name is an attribute of the class or of its instances.
PRIVATES: tuple[tuple[str, str, str], ...] = (
    # Patched by tests/ui/conftest.py, one fixture each.
    ("textual.widgets._input:Input", "_toggle_cursor", "input_cursor_still: no blinking"),
    (
        "textual.widgets._text_area:TextArea",
        "_toggle_cursor_blink_visible",
        "text_area_cursor_still: no blinking",
    ),
    ("textual.screen", "UPDATE_PERIOD", "fewer_frames (speed): the screen's refresh period"),
    ("textual.screen:Screen", "_compositor_refresh", "no_unseen_frames (speed): skip painting"),
    ("textual.app:App", "_shutdown", "last_screen_painted: paint an app's last screen"),
    ("textual.css.stylesheet:Stylesheet", "_parse_rules", "css_parsed_once (speed): cache"),
    ("textual.pilot", "wait_for_idle", "quick_idle (speed): the pilot's wait for idle"),
    ("textual.app", "wait_for_idle", "quick_idle (speed): the app's wait for idle"),
    ("textual.screen:Screen", "_layout_required", "settle: a layout still owed (_frame_due)"),
    ("textual.screen:Screen", "_scroll_required", "settle: a scroll still owed (_frame_due)"),
    ("textual.screen:Screen", "_callbacks", "settle: call_after_refresh owed (_frame_due)"),
    (
        "textual._animator:Animator",
        "_complete_event",
        "animations_waited_when_any (speed): settle waits for animations only when any",
    ),
    (
        "textual.pilot:Pilot",
        "_wait_for_screen",
        "screen_waits_explained: its 30 s timeout fails naming the busy widgets",
    ),
    # Read or called by tests/ui/conftest.py and tests/ui/screen_wait.py.
    ("textual.message_pump:MessagePump", "_task", "screen_wait: where a busy widget awaits"),
    ("textual.css.stylesheet:Stylesheet", "_variables", "css_parsed_once: the cache key"),
    ("textual.css.stylesheet:Stylesheet", "_parse_cache", "test_warm_up: the parses kept"),
    ("textual.dom:DOMNode", "_css_styles", "test_warm_up: each node's styles, before and after"),
    ("textual.css.styles:Styles", "_rules", "test_warm_up: each node's style rules, compared"),
    ("textual.screen:Screen", "_compositor", "screen_text, paint: render the screen"),
    (
        "textual.message:Message",
        "_set_forwarded",
        "test_workspaces: a key on its way back to the App, as a bubbled one is",
    ),
    ("textual._compositor:Compositor", "_dirty_regions", "no_unseen_frames: drop them"),
    ("textual.screen:Screen", "_dirty_widgets", "no_unseen_frames: drop them"),
    ("textual.app:App", "_update_mouse_over", "no_unseen_frames: as the refresh did"),
    ("textual.app:App", "_background_screens", "screen_text, paint, background layout"),
    ("textual.app:App", "_running", "last_screen_painted: only a running app"),
    ("textual.app:App", "_closed", "last_screen_painted: only an open app"),
    ("textual.app:App", "_handle_exception", "last_screen_painted: a paint that raises fails"),
    ("textual.screen:Screen", "_on_timer_update", "background_screens_laid_out"),
    ("textual.message_pump:MessagePump", "_message_queue", "quick_idle: work still queued"),
    ("textual._context", "active_app", "quick_idle: the app whose queues to look at"),
    (
        "textual._context",
        "active_message_pump",
        "shared_app: Textual's context in a test on the module's shared app, as run_test sets it",
    ),
    ("textual._compositor", "visible_screen_stack", "screen_top_line: the screens shown"),
    # Read by single tests.
    ("textual.app:App", "_notifications", "the notifications shown (many UI tests)"),
    ("textual.app:App", "_driver", "test_held_keys: send a key event as the terminal would"),
    ("textual.app:App", "_exit", "test_held_keys: the app is exiting"),
    (
        "textual.screen:Screen",
        "_binding_chain",
        "test_held_keys: the chain's builds counted (one for a key's question and priority check)",
    ),
    (
        "textual.app:App",
        "_check_bindings",
        "test_held_keys: the priority check reads the key's chain only for its focus",
    ),
    (
        "textual.app:App",
        "_batch_count",
        "test_today: a source's rows put in place hold the screen's updates a turn; "
        "test_upstream_bugs: a mode switch holds the display",
    ),
    (
        "textual.app:App",
        "_screen_stacks",
        "test_upstream_bugs, test_today, test_warm_up: a mode's stack; shared_app: modes built",
    ),
    ("textual.app:App", "_current_mode", "test_upstream_bugs: the current mode's stack"),
    ("textual.widgets._input:Input", "_value", "test_charges_search: the styled query text"),
    ("textual.widgets._option_list:OptionList", "_line_cache", "test_hostile_keys: no lines"),
    ("textual.command:CommandPalette", "_action_command_list", "test_hostile_keys: page keys"),
    ("textual.keys", "_character_to_key", "test_fuzz_keys: a key's name from its character"),
    (
        "textual.widgets._data_table:DataTable",
        "_render_cell",
        "test_fit_table, test_warm_up: the cells drawn again after a change, counted",
    ),
    (
        "textual.widgets._data_table:DataTable",
        "_render_line_in_row",
        "test_warm_up: a table's row lines drawn on a first visit, counted",
    ),
    ("textual.strip:Strip", "_divide_cache", "test_upstream_bugs: a strip held in its own cache"),
    (
        "textual.timer:Timer",
        "_tick",
        "test_warm_up: a screen's update timer ticked, noted; test_upstream_bugs: a turn made",
    ),
    (
        "textual.widgets._data_table:DataTable",
        "_cell_render_cache",
        "test_fit_table: cleared, so Textual's own drawing of a cell is compared afresh",
    ),
    (
        "textual.widgets._data_table:DataTable",
        "_column_locations",
        "test_fit_table: a column's key from its index, as DataTable reads it",
    ),
    (
        "textual._styles_cache:StylesCache",
        "get_inner_outer",
        "test_upstream_bugs: the lru_cache that keeps a widget's drawing cache alive",
    ),
)
