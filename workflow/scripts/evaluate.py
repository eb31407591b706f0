# Run by `rule evaluate`; the work is in straggler.pipeline.evaluate.
import logging

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)

from straggler.pipeline import evaluate

evaluate(snakemake.params.spec, snakemake.wildcards.cell, snakemake.output[0])
