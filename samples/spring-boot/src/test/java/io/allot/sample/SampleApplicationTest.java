package io.allot.sample;

import org.springframework.boot.test.context.SpringBootTest;

/** The sample as it ships: {@code application.properties}, the memory store. */
@SpringBootTest(properties = "allot.worker.host=127.0.0.1")
class SampleApplicationTest extends SampleScenario {}
