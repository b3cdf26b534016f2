"""The pure choices of net/gate.py: reading budgets and the table-wide password wait."""

from __future__ import annotations

from hanabi_p2p.net.gate import BudgetRule, ReadBudget, TableCodeGuard

RULE = BudgetRule(rate=10.0, burst=20.0, close_after=3.0)


def test_a_link_gets_its_burst_then_its_rate_and_the_excess_is_counted() -> None:
    budget = ReadBudget(RULE, now=0.0)
    taken = sum(budget.take(0.0) for _ in range(50))
    assert taken == 20 and budget.dropped == 30
    assert sum(budget.take(1.0) for _ in range(50)) == 10  # one second later: the rate
    assert budget.dropped == 70


def test_a_link_over_budget_for_long_is_due_to_close_and_a_pause_forgives_it() -> None:
    budget = ReadBudget(RULE, now=0.0)
    t = 0.0
    while t < 2.9:  # 100 frames a second, ten times the rate
        budget.take(t)
        t += 0.01
    assert not budget.over_for_long(t)
    while t < 3.5:
        budget.take(t)
        t += 0.01
    assert budget.over_for_long(t)
    calm = ReadBudget(RULE, now=0.0)
    for _ in range(40):
        calm.take(0.0)  # one burst over budget...
    assert calm.take(5.0) and not calm.over_for_long(5.0)  # ...then quiet: not closed


def test_wrong_codes_from_everywhere_make_every_stranger_wait_longer() -> None:
    guard = TableCodeGuard(free=3, initial=1.0, cap=8.0)
    assert [guard.wrong_code(0.0) for _ in range(3)] == [0.0, 0.0, 0.0]  # friends' typos
    assert [guard.wrong_code(0.0) for _ in range(5)] == [1.0, 2.0, 4.0, 8.0, 8.0]
    assert guard.wait_left(0.0) == 8.0 and guard.wait_left(10.0) == 0.0
    guard.right_code()
    assert guard.wait_left(0.0) == 0.0 and guard.wrong_code(0.0) == 0.0


def test_a_link_over_budget_is_not_read_again_until_its_next_frame_fits() -> None:
    budget = ReadBudget(RULE, now=0.0)
    for _ in range(20):
        assert budget.take(0.0)
    assert not budget.take(0.0)
    pause = budget.pause(0.0)
    assert abs(pause - 1 / RULE.rate) < 1e-9  # one frame's worth of its rate
    assert not budget.take(pause * 0.9) and budget.take(pause)


def test_when_the_table_wide_wait_ends_addresses_that_never_guessed_wrong_go_first() -> None:
    guard = TableCodeGuard(free=0, initial=4.0, cap=4.0, grace=2.0)
    assert guard.wait_for(0.0, on_record=True) == 0.0  # no wait yet: no grace either
    guard.wrong_code(10.0)  # waits until 14
    assert guard.wait_for(12.0, on_record=False) == 2.0
    assert guard.wait_for(12.0, on_record=True) == 2.0
    assert guard.wait_for(14.5, on_record=False) == 0.0  # a joiner back as told: its turn
    assert guard.wait_for(14.5, on_record=True) == 1.5  # a guesser: after the grace
    assert guard.wait_for(16.0, on_record=True) == 0.0
