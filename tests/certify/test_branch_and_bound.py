"""The branch and bound proves true inequalities, stops on false ones, and its certificates are
accepted by the independent checker and refused once tampered with."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dpquant.certify.branch_and_bound import (
    CertificationFailed,
    prove_boxes,
    prove_points,
    short_bound,
)
from dpquant.certify.certificates import certify
from dpquant.certify.specs import ClaimCertification, Condition, Part, Variable
from proofs_checks.certificate_checker import CertificateError, check_certificate


def spec(*parts: Part) -> ClaimCertification:
    return ClaimCertification(claim="test/claim", domain="a box", parts=parts)


def test_am_gm_is_proven_on_a_box_and_the_checker_accepts_it() -> None:
    part = Part(
        name="am-gm",
        variables=(Variable("x", "1/10", 10, scale="log"), Variable("y", "1/10", 10)),
        goal=Condition("(x + y)/2 - sqrt(x*y) + 1/10", ">"),
    )
    certified = certify(spec(part))
    assert certified.leaves > 1
    assert check_certificate(certified.data).leaves == certified.leaves


def test_a_false_inequality_stops_with_a_counterexample() -> None:
    part = Part(
        name="false",
        variables=(Variable("x", 0, 2),),
        goal=Condition("1 - x**2", ">="),
        max_leaves=200,
    )
    with pytest.raises(CertificationFailed) as info:
        prove_boxes(part)
    assert info.value.counterexample
    lo, hi = info.value.box["x"]
    assert hi > 1


def test_a_goal_tight_at_a_point_is_undecided_not_proven() -> None:
    """x(1 − x) + x² − x ≥ 0 holds everywhere (it is 0), but ball arithmetic never shows it on a box (the two
    factors are enclosed independently): undecided, and not a counterexample."""
    part = Part(
        name="tight",
        variables=(Variable("x", -1, 1),),
        goal=Condition("x*(1 - x) + x**2 - x", ">="),
        max_leaves=100,
    )
    with pytest.raises(CertificationFailed) as info:
        prove_boxes(part)
    assert not info.value.counterexample


def test_hypotheses_cut_the_domain() -> None:
    part = Part(
        name="x > 1 implies x**2 > 1",
        variables=(Variable("x", -3, 3),),
        hypotheses=(Condition("x - 1", ">"),),
        goal=Condition("x**2 - 1", ">"),
        max_leaves=300,
    )
    with pytest.raises(CertificationFailed):
        prove_boxes(part)  # strict near x = 1: undecided, never proven
    part = Part(
        name="x >= 11/10 implies x**2 > 1",
        variables=(Variable("x", -3, 3),),
        hypotheses=(Condition("x - 11/10", ">="),),
        goal=Condition("x**2 - 1", ">"),
    )
    tree, _ = prove_boxes(part)
    data = certify(spec(part)).data
    assert check_certificate(data).leaves >= 2
    assert "outside" in str(tree)


def test_integer_variables_split_into_integers() -> None:
    part = Part(
        name="2**n >= n + 1",
        variables=(Variable("n", 0, 40, integer=True),),
        goal=Condition("2**n - n - 1", ">="),
    )
    data = certify(spec(part)).data
    assert check_certificate(data).leaves >= 2


def test_points_prove_a_counterexample_and_refuse_a_point_that_is_not_one() -> None:
    part = Part(
        name="sqrt(2) is not below 7/5",
        variables=(Variable("x", 0, 10),),
        goal=Condition("sqrt(x) - 7/5", ">"),
        method="points",
        points=({"x": 2},),
    )
    assert prove_points(part)[0]["at"] == {"x": "2"}
    bad = Part(
        name="no",
        variables=part.variables,
        goal=Condition("7/5 - sqrt(x)", ">"),
        method="points",
        points=({"x": 2},),
    )
    with pytest.raises(CertificationFailed):
        prove_points(bad)


def test_an_identity_is_proven_by_sympy_and_a_non_identity_refused() -> None:
    good = Part(
        name="log-exp",
        variables=(Variable("x", 1, 2),),
        goal=Condition("log(exp(x)*exp(x)) - 2*x", ">="),
        method="identity",
    )
    assert check_certificate(certify(spec(good)).data).leaves == 1
    bad = Part(
        name="no",
        variables=(Variable("x", 1, 2),),
        goal=Condition("log(x) - x", ">="),
        method="identity",
    )
    with pytest.raises(CertificationFailed):
        certify(spec(bad))


def test_a_leaf_bound_is_a_short_number_between_zero_and_the_enclosure() -> None:
    from flint import arb

    assert short_bound(arb("0.123456789"), ">") == Fraction(617, 10**4)
    assert short_bound(arb("-0.5"), ">=") is None
    assert short_bound(arb("-0.123456789"), "<") == -Fraction(617, 10**4)
    assert short_bound(arb(0), ">=") == 0 and short_bound(arb(0), ">") is None


def test_a_tampered_certificate_of_the_engine_is_refused() -> None:
    part = Part(name="p", variables=(Variable("x", 1, 4),), goal=Condition("x - 1/2", ">"))
    data = certify(spec(part)).data
    data["parts"][0]["tree"]["bound"] = "1"  # the enclosure at x = 1 is 1/2
    with pytest.raises(CertificateError):
        check_certificate(data)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"lo": "a", "hi": 1},
        {"lo": 2, "hi": 1},
        {"lo": 0, "hi": 1, "scale": "log"},
        {"lo": "1/2", "hi": 3, "integer": True},
        {"lo": True, "hi": 1},
        {"lo": 0.5, "hi": 1},
    ],
)
def test_a_variable_refuses_a_bad_range(kwargs) -> None:
    with pytest.raises(ValueError):
        Variable("x", **kwargs)


def test_a_part_refuses_a_bad_method_or_relation() -> None:
    with pytest.raises(ValueError, match="relation"):
        Condition("x", "==")
    with pytest.raises(ValueError, match="method"):
        Part(name="p", variables=(Variable("x", 0, 1),), goal=Condition("x"), method="guess")
    with pytest.raises(ValueError, match="points"):
        Part(name="p", variables=(Variable("x", 0, 1),), goal=Condition("x"), method="points")


def monotone_spec(goal: str, lo: int | str = 0, hi: int | str = 1) -> ClaimCertification:
    return spec(
        Part(
            name="tight on a face",
            variables=(Variable("x", lo, hi), Variable("a", 1, 3)),
            goal=Condition(goal, ">="),
            monotone=("x",),
        )
    )


def test_a_goal_tight_on_a_face_is_proven_by_monotone_leaves() -> None:
    """a·x − log(1 + a·x) ≥ 0 is 0 on the face x = 0, where no box touching it is decided by
    its enclosure; its derivative a − a/(1 + a·x) is itself 0 there (a second monotone level)."""
    goal = "a*x - log(1 + a*x)"
    with pytest.raises(CertificationFailed):
        prove_boxes(Part(name="plain", variables=(Variable("x", 0, 1), Variable("a", 1, 3)),
                         goal=Condition(goal, ">="), max_leaves=500))
    certified = certify(monotone_spec(goal))
    data = certified.data
    assert data["parts"][0]["expressions"][0] == {"of": 0, "variable": "x", "expression": "a - a/(a*x + 1)"}
    assert "monotone" in str(data["parts"][0]["tree"])
    assert check_certificate(data).leaves == certified.leaves


def find(node: dict, key: str) -> dict:
    """The first node of a tree holding ``key``."""
    stack = [node]
    while stack:
        n = stack.pop()
        if key in n:
            return n
        stack += [v for v in n.values() if isinstance(v, dict)]
    raise AssertionError(key)


@pytest.mark.parametrize(
    "tamper",
    ["derivative", "direction", "outside", "index", "face"],
)
def test_a_tampered_monotone_leaf_is_refused(tamper: str) -> None:
    data = certify(monotone_spec("a*x - log(1 + a*x)")).data
    part = data["parts"][0]
    leaf = find(part["tree"], "monotone")
    if tamper == "derivative":
        part["expressions"][0]["expression"] = "a - a/(a*x + 2)"  # not the derivative
    elif tamper == "direction":
        leaf["direction"] = "down"  # the face moves to x's high end, the slope must be <= 0
    elif tamper == "outside":
        part["hypotheses"] = [{"expression": "x - 1/2", "relation": ">"}]
        find(leaf["on_face"], "bound").update({"outside": 0, "bound": "-1/2"})
    elif tamper == "face":
        face = part["expressions"][leaf["face"] - 1]
        face["at"], face["expression"] = "1", face["expression"].replace("x", "1")
    else:
        leaf["monotone"] = 7
    with pytest.raises(CertificateError):
        check_certificate(data)


def test_a_rough_goal_gets_no_monotone_leaf() -> None:
    """Abs is not smooth: no derivative is taken, and a goal tight on a face stays undecided."""
    part = Part(name="rough", variables=(Variable("x", 0, 1), Variable("a", 1, 3)),
                goal=Condition("Abs(a*x - log(1 + a*x))", ">"), monotone=("x",), max_leaves=200)
    with pytest.raises(CertificationFailed):
        prove_boxes(part)


def test_monotone_names_variables_of_a_boxes_part() -> None:
    with pytest.raises(ValueError, match="monotone"):
        Part(name="p", variables=(Variable("x", 0, 1),), goal=Condition("x"), monotone=("y",))


def test_a_monotone_leaf_along_an_integer_variable_is_refused() -> None:
    """An integer variable's slope proof splits into [lo, at] and [at + 1, hi]: the gaps between
    integers are never evaluated, so the mean value theorem has no ground there."""
    data = certify(monotone_spec("a*x - log(1 + a*x)")).data
    data["parts"][0]["variables"][0].update({"lo": "0", "hi": "1", "integer": True})
    with pytest.raises(CertificateError, match="monotone along the integer variable"):
        check_certificate(data)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"claim": "no id"}, "claim"),
        ({"claim": None}, "claim"),
        ({"domain": " "}, "domain"),
        ({"parts": ()}, "parts"),
        ({"parts": ["x"]}, "parts"),
    ],
)
def test_a_certification_refuses_a_bad_id_domain_or_parts(kwargs: dict, name: str) -> None:
    part = Part(name="p", variables=(Variable("x", 1, 2),), goal=Condition("x", ">"))
    args = {"claim": "test/claim", "domain": "d", "parts": (part,), **kwargs}
    with pytest.raises(ValueError) as info:
        ClaimCertification(**args)
    assert info.value.parameter == name
    with pytest.raises(ValueError):
        certify("test/claim")  # type: ignore[arg-type]
