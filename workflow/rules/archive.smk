rule archive:
    """Pack the finished study, its code and environment, with a sha256 manifest, into
    one reproducible archive (not part of `all`: `snakemake --cores all archive`).
    Refused, and nothing written, unless the result set is whole (every cell of the
    grid, the dataset their aggregate) and free of symbolic links."""
    input:
        study_outputs(),
    output:
        f"archives/{STUDY}.tar.gz",
    log:
        f"{RESULTS}/logs/archive.log",
    run:
        from straggler.outputs.archive import create

        # the code is the Snakefile's project (common.smk, PROJECT), also when --directory runs the study elsewhere
        create(STUDY, project_root=PROJECT, output=output[0], force=True)
