"""The config schema's shared definitions (its ``$defs``): what several keys refer to.

Completed when the schema is built (:mod:`.schema`): ``policy_name`` gets the policy
names, and each policy's parameters become a ``<name>_parameters`` definition, from the
policy registry (:mod:`straggler.model.policies`); ``distribution`` gets the family names and
one branch per family with its parameters, from the size families
(:data:`straggler.model.distributions.FAMILIES`, each family's ``schema``).
"""

from __future__ import annotations

DEFINITIONS: dict[str, dict] = {
    "load_range": {
        "description": (
            "Loads from start to stop in steps of step: start, start + step, start + "
            "2 step, ... up to stop, which is included when it is a whole number of "
            "steps from start. Each load is computed in decimal from the numbers as "
            "written, so the range gives the loads a person writes (0.3, never "
            "0.30000000000000004); integers start and step give integers. The "
            "resolved config holds the list, so a range and the same list written out "
            "give the same cells and results; at most 1000 loads."
        ),
        "type": "object",
        "additionalProperties": False,
        "required": ["start", "stop", "step"],
        "properties": {
            "start": {
                "description": "The first load, a number > 0.",
                "type": "number",
                "exclusiveMinimum": 0,
            },
            "stop": {
                "description": (
                    "The largest load, a number >= start (included when a whole number of steps from start)."
                ),
                "type": "number",
                "exclusiveMinimum": 0,
            },
            "step": {
                "description": "The difference between two consecutive loads, a number > 0.",
                "type": "number",
                "exclusiveMinimum": 0,
            },
        },
    },
    "name": {
        "description": (
            "A name of letters, digits, '_' and '-' (no dots), starting with a letter or '_', at most 64 characters."
        ),
        "type": "string",
        "pattern": "^[A-Za-z_][A-Za-z0-9_-]{0,63}$(?!\\n)",
    },
    "policy_name": {"description": "A canonical policy name or an alias.", "type": "string"},
    "dependence_work": {
        "description": (
            "The one distribution (a name on grid.distribution) this dependence is evaluated with: at "
            "the grid's other distributions its points are impossible (NaN, with the reason). It pairs "
            "a dependence with the size law it is stated on, as S&X is with its work X and a check of "
            "it with the law of one copy, X S."
        ),
        "$ref": "#/$defs/name",
    },
    "dependence_checks": {
        "description": (
            "The dependence (a name on grid.dependence) whose answer this one checks: a question's "
            "answer is the named dependence's, and this one says whether it holds here too."
        ),
        "$ref": "#/$defs/name",
    },
    "probabilities": {
        "description": "Probabilities, each in [0, 1], summing to 1.",
        "type": "array",
        "minItems": 1,
        "items": {"type": "number", "minimum": 0, "maximum": 1},
    },
    "tau_value": {
        "description": "A threshold >= 0 (.inf never reroutes or replicates), or opt.",
        "anyOf": [{"type": "number", "minimum": 0}, {"const": "opt"}],
    },
    "tau": {
        "description": (
            "Threshold (time of processing after which the job is rerouted or "
            "replicated): a number in [0, .inf] as in the threshold paper (Rep with "
            "tau 0 is full redundancy, FRed), opt (the default: the analysis chooses "
            "it) or a list of those (a dataset dimension)."
        ),
        "anyOf": [
            {"$ref": "#/$defs/tau_value"},
            {
                "type": "array",
                "minItems": 1,
                "uniqueItems": True,
                "items": {"$ref": "#/$defs/tau_value"},
            },
        ],
        "default": "opt",
    },
    "keep_value": {
        "description": "An integer in [1, 10000], d or opt.",
        "anyOf": [
            {"type": "integer", "minimum": 1, "maximum": 10000},
            {"enum": ["d", "opt"]},
        ],
    },
    "flag": {
        "description": "true or false, or a list of those (a dataset dimension).",
        "anyOf": [
            {"type": "boolean"},
            {
                "type": "array",
                "minItems": 1,
                "uniqueItems": True,
                "items": {"type": "boolean"},
            },
        ],
    },
    "no_parameters": {
        "description": "A policy without parameters (an empty mapping or nothing).",
        "type": ["object", "null"],
        "additionalProperties": False,
    },
    "distribution": {
        "description": (
            "A job-size distribution: family and its parameters; any family also "
            "takes scale_to_mean (rescale to that mean) and unit (s, ms or us: the unit of its "
            "times). Its mean must be in [1e-100, 1e100]."
        ),
        "type": "object",
        "required": ["family"],
        "properties": {"family": {"description": "The distribution family."}},
    },
    "scale_to_mean": {
        "description": "Rescale the distribution to this mean (> 0).",
        "type": "number",
        "exclusiveMinimum": 0,
    },
    "time_unit": {
        "description": (
            "The unit of the law's times (s, ms or us): every time of the study (E[T], its quantiles, "
            "a delay, an SLO's target) is a number in it, printed with it and converted from it where a "
            "deployed stack wants another (straggler recommend --emit). Without it the times are "
            "unit-free and the answers say so; the laws of one study state one unit."
        ),
        "enum": ["s", "ms", "us"],
    },
    "dependence": {
        "description": (
            "How the sizes of a job's replicas relate: identical (one size X for "
            "all), iid (independent copies of X), mixture (one size for all with "
            "probability identical, else independent copies; every copy keeps the law of X), "
            "sx (X times i.i.d. slowdowns S_i) or pairs (a job's two copies take one measured "
            "pair of durations of a file, replayed; at most two copies)."
        ),
        "type": "object",
        "required": ["kind"],
        "properties": {
            "kind": {
                "description": "identical, iid, mixture, sx or pairs.",
                "enum": ["identical", "iid", "mixture", "sx", "pairs"],
            },
        },
        "allOf": [
            {
                "if": {"properties": {"kind": {"const": "mixture"}}, "required": ["kind"]},
                "then": {
                    "additionalProperties": False,
                    "required": ["identical"],
                    "properties": {
                        "kind": {"description": "The dependence kind."},
                        "work": {"$ref": "#/$defs/dependence_work"},
                        "checks": {"$ref": "#/$defs/dependence_checks"},
                        "identical": {
                            "description": (
                                "The probability c that a job's copies are one draw (else independent "
                                "draws): 0 is iid, 1 identical; Spearman's rho between two copies is c "
                                "(straggler fit --pairs measures it). Sweep it with grid: {<name>.identical: [...]}."
                            ),
                            "type": "number",
                            "minimum": 0,
                            "maximum": 1,
                        },
                    },
                },
            },
            {
                "if": {"properties": {"kind": {"const": "sx"}}, "required": ["kind"]},
                "then": {
                    "additionalProperties": False,
                    "required": ["slowdown"],
                    "properties": {
                        "kind": {"description": "The dependence kind."},
                        "work": {"$ref": "#/$defs/dependence_work"},
                        "checks": {"$ref": "#/$defs/dependence_checks"},
                        "slowdown": {
                            "description": (
                                "The slowdown distribution S: a name under distributions or an inline distribution."
                            ),
                            "anyOf": [
                                {"$ref": "#/$defs/name"},
                                {"$ref": "#/$defs/distribution"},
                            ],
                        },
                    },
                },
            },
            {
                "if": {"properties": {"kind": {"const": "pairs"}}, "required": ["kind"]},
                "then": {
                    "additionalProperties": False,
                    "required": ["file"],
                    "properties": {
                        "kind": {"description": "The dependence kind."},
                        "work": {"$ref": "#/$defs/dependence_work"},
                        "checks": {"$ref": "#/$defs/dependence_checks"},
                        "file": {
                            "description": (
                                "A file of paired durations, as straggler fit --pairs reads it (two "
                                "durations a record: the same request on two servers, both run to the "
                                "end). The cell's distribution must be the pairs' marginal: "
                                "{family: empirical, file: <this file>, column: [<A>, <B>]}."
                            ),
                            "type": "string",
                            "minLength": 1,
                        },
                        "columns": {
                            "description": "The two columns to read, headers or indices from 0 (the file's two by default).",
                            "type": "array",
                            "minItems": 2,
                            "maxItems": 2,
                            "items": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "integer", "minimum": 0}]},
                        },
                    },
                },
            },
            {
                "if": {
                    "properties": {"kind": {"enum": ["identical", "iid"]}},
                    "required": ["kind"],
                },
                "then": {
                    "additionalProperties": False,
                    "properties": {
                        "kind": {"description": "The dependence kind."},
                        "work": {"$ref": "#/$defs/dependence_work"},
                        "checks": {"$ref": "#/$defs/dependence_checks"},
                    },
                },
            },
        ],
    },
}
