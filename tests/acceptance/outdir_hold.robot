*** Settings ***
Documentation     One MRR test on the simulator that can be held before it measures.
...
...               Run by tests/acceptance/test_outdir_lock.py: a first run is held
...               (``${HOLD}``: a file the test waits for) while a second plain robot
...               run into the same output directory finds the directory locked.

Library           OperatingSystem
Library           NdrPdrLibrary    ${CURDIR}/../../topologies/sim.yaml

Suite Setup       Set Up Testbed
Suite Teardown    Tear Down Testbed


*** Variables ***
${HOLD}       ${None}    # a file: the test says it started (``${HOLD}.started``), then waits for it
${TIMEOUT}    60s


*** Test Cases ***
Held MRR
    [Documentation]    One MRR trial; with ``${HOLD}`` only once that file exists.
    IF    $HOLD is not None
        Create File    ${HOLD}.started
        Wait Until Created    ${HOLD}    timeout=${TIMEOUT}
    END
    Measure MRR    ethip4-ip4base    64    trials=1
