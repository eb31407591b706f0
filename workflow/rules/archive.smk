rule archive:
    """Pack the finished study, its code and environment, with a sha256 manifest, into
    one reproducible archive (not part of `all`: `snakemake --cores all archive`)."""
    input:
        study_outputs(),
    output:
        f"archives/{STUDY}.tar.gz",
    log:
        f"{RESULTS}/logs/archive.log",
    run:
        from straggler.archive import create

        create(STUDY, output=output[0], force=True)
